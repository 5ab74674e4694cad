/**
 * What a change proposal changes, computed once for every risk rule (SPEC §8): the vocabulary of
 * risks and policies, the precomputed `Change` (steps matched by id, loop bodies included) and
 * the outbound hosts each side calls.
 */
import type { WorkflowDefinition } from "./definition";
import { diffDefinitions, type DefinitionDiff, type FieldChange, type GraphDiff } from "./diff";
import { isPlainObject } from "./json";
import { normalizeDefinition } from "./normalize";
import { forEachStep } from "./refs";
import type { ApprovalTarget } from "./required-approvals";
import { hostMatches, type Step } from "./steps";
import { hasTemplate } from "./templates";
import { outboundUrlFields } from "./validate-steps";

export const RISK_LEVELS = ["low", "medium", "high"] as const;

export type RiskLevel = (typeof RISK_LEVELS)[number];

/** Rule names, for code that reacts to one reason (e.g. the review screen's icons). */
export const RISK_RULES = {
  forbiddenStepType: "forbidden_step_type",
  scriptStep: "script_step",
  newOutboundDomain: "new_outbound_domain",
  dynamicUrl: "dynamic_url",
  approvalGateRemoved: "approval_gate_removed",
  approvalGateWeakened: "approval_gate_weakened",
  approvalGateBypassed: "approval_gate_bypassed",
  approvalGateStrengthened: "approval_gate_strengthened",
  approvalRequired: "approval_required",
  newSecret: "new_secret",
  constraintLoosened: "constraint_loosened",
  sideEffectStep: "side_effect_step",
  edgeRewired: "edge_rewired",
} as const;

export type RiskRule = (typeof RISK_RULES)[keyof typeof RISK_RULES];

export const POLICIES = {
  forbiddenStepTypes: "forbidden_step_types",
  scriptSteps: "script_steps",
  outboundDomains: "outbound_domains",
  approvalGates: "approval_gates",
  requiredApprovals: "required_approvals",
  secrets: "secrets",
  constraints: "constraints",
} as const;

export type PolicyName = (typeof POLICIES)[keyof typeof POLICIES];

export interface RiskReason {
  rule: string;
  level: RiskLevel;
  message: string;
  stepId?: string;
}

export interface PolicyVerdict {
  policy: string;
  ok: boolean;
  blocking: boolean;
  message: string;
  stepIds?: string[];
}

export interface ChangeAssessment {
  risk: RiskLevel; // max of reasons' levels; "low" when no reasons
  reasons: RiskReason[];
  verdicts: PolicyVerdict[]; // one per policy, ok or not
  /** Loosened constraints: the reviewer must rank above the proposer (SPEC §8). */
  needsSeniorReviewer: boolean;
}

export interface AssessInput {
  base: unknown; // current published definition (any authoring shape; normalize it)
  proposed: unknown;
  /** Hosts every earlier version of this workflow called (from http/notify urls); "*.example.com" patterns allowed. */
  knownDomains: readonly string[];
  policy: {
    forbiddenStepTypes: readonly string[];
    scriptStepsEnabled: boolean;
    /** Workspace policy: kinds of steps that must follow an approval (none when omitted). */
    requiredApprovals?: readonly ApprovalTarget[];
  };
}

/** An approval timeout growing by more than this factor counts as weakening the gate. */
export const APPROVAL_TIMEOUT_GROWTH_FACTOR = 2;

/** One step of the proposed definition with what happened to it. */
export interface StepDelta {
  readonly step: Step;
  /** Loop path prefix for messages ("each_order/"), "" at top level. */
  readonly prefix: string;
  readonly status: "added" | "changed";
  /** Field changes relative to the step; empty for added steps. */
  readonly changes: readonly FieldChange[];
  /** The base step with this id when its type differs (a retyped step counts as added). */
  readonly replaced?: Step;
}

export interface Change {
  readonly base: WorkflowDefinition;
  readonly proposed: WorkflowDefinition;
  readonly diff: DefinitionDiff;
  /** Added (or retyped) and changed steps, loop bodies included. */
  readonly steps: readonly StepDelta[];
  /** Removed steps, loop bodies included, with their loop prefix. */
  readonly removed: ReadonlyArray<{ step: Step; prefix: string }>;
  readonly baseSteps: ReadonlyMap<string, Step>;
  readonly proposedSteps: ReadonlyMap<string, Step>;
  /** knownDomains (lower-cased, patterns allowed) plus every host the base calls. */
  readonly knownHosts: readonly string[];
  readonly input: AssessInput;
}

/** Normalizes both sides and diffs them; throws DefinitionValidationError if one does not parse. */
export function describeChange(input: AssessInput): Change {
  const base = normalizeDefinition(input.base);
  const proposed = normalizeDefinition(input.proposed);
  const diff = diffDefinitions(base, proposed);
  const steps: StepDelta[] = [];
  const removed: Array<{ step: Step; prefix: string }> = [];
  collectSteps(diff, "", steps, removed);
  return {
    base,
    proposed,
    diff,
    steps,
    removed,
    baseSteps: stepsById(base),
    proposedSteps: stepsById(proposed),
    knownHosts: [...input.knownDomains.map((d) => d.toLowerCase()), ...outboundDomains(base).hosts],
    input,
  };
}

function collectSteps(
  graph: GraphDiff,
  prefix: string,
  out: StepDelta[],
  removed: Array<{ step: Step; prefix: string }>,
): void {
  const withBody = (step: Step, p: string, visit: (s: Step, p: string) => void) => {
    visit(step, p);
    if (step.type === "loop" && step.config.body)
      for (const inner of step.config.body.steps) withBody(inner, `${p}${step.id}/`, visit);
  };
  for (const step of graph.steps.added)
    withBody(step, prefix, (s, p) =>
      out.push({ step: s, prefix: p, status: "added", changes: [] }),
    );
  for (const step of graph.steps.removed)
    withBody(step, prefix, (s, p) => removed.push({ step: s, prefix: p }));
  for (const change of graph.steps.changed) {
    if (change.before.type !== change.after.type) {
      out.push({
        step: change.after,
        prefix,
        status: "added",
        changes: [],
        replaced: change.before,
      });
      removed.push({ step: change.before, prefix });
    } else if (change.changes.length > 0) {
      out.push({ step: change.after, prefix, status: "changed", changes: change.changes });
    }
    if (change.body) collectSteps(change.body, `${prefix}${change.id}/`, out, removed);
  }
}

function stepsById(definition: WorkflowDefinition): Map<string, Step> {
  const map = new Map<string, Step>();
  forEachStep(definition, (step) => {
    if (typeof step.id === "string" && !map.has(step.id)) map.set(step.id, step as Step);
  });
  return map;
}

/** URL-valued config fields that reach the network (validate.ts's list, as dotted field names). */
export function stepOutboundUrls(step: {
  type?: unknown;
  config?: unknown;
}): Array<{ field: string; url: string }> {
  if (!isPlainObject(step.config)) return [];
  return outboundUrlFields(step.type, step.config).map(([path, url]) => ({
    field: ["config", ...path]
      .map((p, i) => (typeof p === "number" ? `[${p}]` : i ? `.${p}` : p))
      .join(""),
    url,
  }));
}

/**
 * The host a URL calls, lower-cased; "dynamic" when a template decides the host
 * (`https://{{ vars.region }}.api.example.com`, `{{ secrets.SLACK_WEBHOOK }}`); null when it is
 * not a URL at all (the validator reports that). A template after the host keeps it literal.
 */
export function urlHost(url: string): string | "dynamic" | null {
  let literal = url;
  if (hasTemplate(url)) {
    const match = /^https?:\/\/[^/?#{}@]+[/?#]/i.exec(url.slice(0, url.indexOf("{{")));
    if (!match) return "dynamic";
    literal = match[0];
  }
  try {
    return new URL(literal).hostname.toLowerCase();
  } catch {
    return null;
  }
}

/** Outbound hosts a definition calls: http step urls, notify webhook targets, agent MCP servers (templated hosts → `dynamic` step ids). */
export function outboundDomains(definition: unknown): {
  hosts: string[];
  dynamic: string[]; /* step ids */
} {
  const hosts = new Set<string>();
  const dynamic = new Set<string>();
  forEachStep(definition, (step) => {
    for (const { url } of stepOutboundUrls(step)) {
      const host = urlHost(url);
      if (host === "dynamic") {
        if (typeof step.id === "string") dynamic.add(step.id);
      } else if (host !== null) hosts.add(host);
    }
  });
  return { hosts: [...hosts].sort(), dynamic: [...dynamic] };
}

/** Hosts of one step that no earlier version called (knownDomains or the base definition). */
export function newHostsOf(change: Change, step: Step): string[] {
  const hosts = stepOutboundUrls(step)
    .map(({ url }) => urlHost(url))
    .filter((h): h is string => h !== null && h !== "dynamic");
  return [...new Set(hosts)].filter(
    (host) => !change.knownHosts.some((pattern) => hostMatches(host, pattern)),
  );
}

export const name = (step: Pick<Step, "id">, prefix = "") => `\`${prefix}${step.id}\``;

export const typed = (step: Pick<Step, "id" | "type">, prefix = "") =>
  `${step.type} step ${name(step, prefix)}`;
