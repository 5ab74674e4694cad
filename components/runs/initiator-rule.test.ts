import { describe, expect, it } from "vitest";
import { initiatorRuleNote } from "./initiator-rule";

describe("the initiator rule on the run page", () => {
  it("explains the rule, who can decide instead, and links to the setting that allows it", () => {
    const note = initiatorRuleNote({ stepId: "ship_it", workflowId: "wf_01abc" });
    expect(note.text).toMatch(/^You started this run, and a run's initiator may not decide/);
    expect(note.text).toContain("Another member with the approver role");
    expect(note.text).toContain('"allowInitiator" on the approval step "ship_it"');
    expect(note.href).toBe("/workflows/wf_01abc/edit?view=json");
    expect(note.linkText).toBe("Open the workflow's JSON in the editor");
  });
});
