/**
 * The run page's explanation of the initiator rule (a gate refuses the person who started the
 * run unless the gate sets `allowInitiator`), with a link to where the setting lives: the
 * approval step's config in the workflow editor.
 */
export interface InitiatorRuleNote {
  text: string;
  linkText: string;
  href: string;
}

export function initiatorRuleNote(gate: { stepId: string; workflowId: string }): InitiatorRuleNote {
  return {
    text: `You started this run, and a run's initiator may not decide its own gates, so that someone else looks at what is being approved. Another member with the approver role (or one listed on the gate) can decide it. To let initiators decide this gate, an editor can turn on "allowInitiator" on the approval step "${gate.stepId}" and publish.`,
    linkText: "Open the workflow's JSON in the editor",
    href: `/workflows/${encodeURIComponent(gate.workflowId)}/edit?view=json`,
  };
}
