/**
 * Risk level and policy verdicts of a change proposal (SPEC §8): what a reviewer must look at,
 * computed from what changes between the published definition and the proposed one. Each rule is
 * a small pure function over one precomputed `Change` and returns reasons that name the culprit.
 * Verdicts group the rules per policy; only forbidden step types (always) and script steps
 * (when the workspace disables them) block. Steps are matched by id, loop bodies included.
 */
import { ROLES } from "../schemas/roles";
import { SIDE_EFFECT_STEP_TYPES } from "./catalog";
import { edgeLabel, fieldList, fieldValues } from "./change-summary";
import type { Constraints, WorkflowDefinition } from "./definition";
import {
  diffDefinitions,
  type DefinitionDiff,
  type FieldChange,
  type GraphDiff,
  type StepChange,
} from "./diff";
import { tryParseDuration } from "./duration";
import { buildGraph, reachFromRoots, unreachableSteps } from "./graph";
import { fieldText } from "./issues";
import { isPlainObject, preview } from "./json";
import { effectiveEdges, normalizeDefinition } from "./normalize";
import { definitionReferences, forEachStep } from "./refs";
import { requiredApprovalViolations, type ApprovalTarget } from "./required-approvals";
import { hostMatches, type Edge, type Step, type StepOfType } from "./steps";
import { hasTemplate } from "./templates";
import { validateDefinition } from "./validate";
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

// --- what changed, computed once --------------------------------------------------------------

/** One step of the proposed definition with what happened to it. */
interface StepDelta {
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

// --- outbound hosts ---------------------------------------------------------------------------

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
function newHostsOf(change: Change, step: Step): string[] {
  const hosts = stepOutboundUrls(step)
    .map(({ url }) => urlHost(url))
    .filter((h): h is string => h !== null && h !== "dynamic");
  return [...new Set(hosts)].filter(
    (host) => !change.knownHosts.some((pattern) => hostMatches(host, pattern)),
  );
}

// --- rules ------------------------------------------------------------------------------------

const name = (step: Pick<Step, "id">, prefix = "") => `\`${prefix}${step.id}\``;
const typed = (step: Pick<Step, "id" | "type">, prefix = "") =>
  `${step.type} step ${name(step, prefix)}`;

/** Step types forbidden by the workspace or the definition (validate.ts's rule), plus types the base forbade and the proposal un-forbids. */
export function forbiddenStepTypeReasons(change: Change): RiskReason[] {
  const result = validateDefinition(change.proposed, {
    forbiddenStepTypes: change.input.policy.forbiddenStepTypes,
  });
  const reasons: RiskReason[] = result.issues
    .filter((issue) => issue.code === "FORBIDDEN_STEP_TYPE")
    .map((issue) => ({
      rule: RISK_RULES.forbiddenStepType,
      level: "high",
      message: issue.message,
      ...(issue.stepId ? { stepId: issue.stepId } : {}),
    }));
  const flagged = new Set(reasons.map((r) => r.stepId));
  const stillForbidden = new Set<string>([
    ...change.proposed.constraints.forbiddenStepTypes,
    ...change.input.policy.forbiddenStepTypes,
  ]);
  for (const step of change.proposedSteps.values()) {
    if (
      flagged.has(step.id) ||
      stillForbidden.has(step.type) ||
      !change.base.constraints.forbiddenStepTypes.includes(step.type)
    )
      continue;
    reasons.push({
      rule: RISK_RULES.forbiddenStepType,
      level: "high",
      message: `${typed(step)} uses a type the current version forbids; the proposal removes "${step.type}" from constraints.forbiddenStepTypes to allow it.`,
      stepId: step.id,
    });
  }
  return reasons;
}

/** Script steps added (or retyped to script) or whose command, env or secrets change. */
export function scriptStepReasons(change: Change): RiskReason[] {
  return change.steps
    .filter((d) => d.step.type === "script")
    .map(({ step, prefix, status, changes }) => {
      const command = step.type === "script" ? preview(step.config.command) : "";
      const message =
        status === "added"
          ? `adds script step ${name(step, prefix)} running ${command} in a shell`
          : `changes script step ${name(step, prefix)}: ${fieldList(changes)} (now runs ${command})`;
      return { rule: RISK_RULES.scriptStep, level: "high" as const, message, stepId: step.id };
    });
}

/** New or changed steps calling a host no version called before, or a host only known at run time. */
export function outboundDomainReasons(change: Change): RiskReason[] {
  const reasons: RiskReason[] = [];
  for (const { step, prefix, status, changes } of change.steps) {
    const urls = stepOutboundUrls(step);
    if (urls.length === 0) continue;
    const verb = status === "added" ? "adds" : "changes";
    for (const host of newHostsOf(change, step)) {
      reasons.push({
        rule: RISK_RULES.newOutboundDomain,
        level: "high",
        message: `${verb} ${typed(step, prefix)} ${status === "added" ? "calling" : "to call"} ${host}, a domain no version used before`,
        stepId: step.id,
      });
    }
    // A changed step is re-checked only when one of its URL fields changed.
    const touched =
      status === "added"
        ? urls
        : urls.filter(({ field }) =>
            changes.some((c) => fieldText(c.path).startsWith(field.split("[")[0]!)),
          );
    for (const { field, url } of touched) {
      if (urlHost(url) !== "dynamic") continue;
      reasons.push({
        rule: RISK_RULES.dynamicUrl,
        // An http URL is where data goes; notify/agent targets are usually a secret-held webhook.
        level: step.type === "http" ? "high" : "medium",
        message: `${verb} ${typed(step, prefix)} whose ${field} host comes from a template (${preview(url)}), so its domain cannot be checked before it runs`,
        stepId: step.id,
      });
    }
  }
  return reasons;
}

/**
 * Reasons that describe a change without counting against its policy: the verdict still passes
 * and names them (a stricter approval gate is not a relaxation).
 */
const INFORMATIONAL_RULES: ReadonlySet<string> = new Set([RISK_RULES.approvalGateStrengthened]);

/** Approval gates removed, retyped, weakened, or routed around — and gates made stricter (low). */
export function approvalGateReasons(change: Change): RiskReason[] {
  const reasons: RiskReason[] = [];
  for (const before of change.baseSteps.values()) {
    if (before.type !== "approval") continue;
    const after = change.proposedSteps.get(before.id);
    if (!after || after.type !== "approval") {
      const what = after
        ? `turns approval gate ${name(before)} into a ${after.type} step`
        : `removes approval gate ${name(before)}`;
      reasons.push({
        rule: RISK_RULES.approvalGateRemoved,
        level: "high",
        message: `${what} (steps after it now run without a person deciding)`,
        stepId: before.id,
      });
      continue;
    }
    const weakenings = approvalWeakenings(before.config, after.config);
    if (weakenings.length > 0) {
      reasons.push({
        rule: RISK_RULES.approvalGateWeakened,
        level: "high",
        message: `weakens approval gate ${name(before)}: ${weakenings.join("; ")}`,
        stepId: before.id,
      });
    }
    const tightenings = approvalTightenings(before.config, after.config);
    if (tightenings.length > 0) {
      reasons.push({
        rule: RISK_RULES.approvalGateStrengthened,
        level: "low",
        message: `makes approval gate ${name(before)} stricter: ${tightenings.join("; ")}`,
        stepId: before.id,
      });
    }
    const bypassed = bypassedSteps(change, before.id);
    if (bypassed.length > 0) {
      reasons.push({
        rule: RISK_RULES.approvalGateBypassed,
        level: "high",
        message: `rewires around approval gate ${name(before)}: ${bypassed.map((id) => `\`${id}\``).join(", ")} can now run without its approval`,
        stepId: before.id,
      });
    }
  }
  return reasons;
}

/**
 * Steps of the kinds the workspace requires an approval before that some path reaches without
 * one (RFC 001 §12) — anywhere in the proposed definition, since applying it publishes it.
 */
export function requiredApprovalReasons(change: Change): RiskReason[] {
  const targets = change.input.policy.requiredApprovals ?? [];
  return requiredApprovalViolations(change.proposed, targets).map((v) => ({
    rule: RISK_RULES.approvalRequired,
    level: "high" as const,
    message: v.message,
    stepId: v.stepId,
  }));
}

type ApprovalConfig = StepOfType<"approval">["config"];

/** How `after` lets more through than `before`, one phrase each. */
export function approvalWeakenings(before: ApprovalConfig, after: ApprovalConfig): string[] {
  const out: string[] = [];
  if (after.quorum < before.quorum) out.push(`quorum lowered ${before.quorum} → ${after.quorum}`);
  out.push(...approverWidenings(before.approvers, after.approvers));
  if (after.allowInitiator && !before.allowInitiator)
    out.push("allowInitiator turned on (the run's initiator may approve their own run)");
  if (after.onTimeout === "approve" && before.onTimeout !== "approve")
    out.push(`onTimeout changed to approve (no decision within ${after.timeout} now approves)`);
  const t0 = tryParseDuration(before.timeout);
  const t1 = tryParseDuration(after.timeout);
  if (t0.ok && t1.ok) {
    if (after.onTimeout === "approve" && before.onTimeout === "approve" && t1.ms < t0.ms)
      out.push(`timeout shortened ${before.timeout} → ${after.timeout} (it auto-approves sooner)`);
    else if (t1.ms > t0.ms * APPROVAL_TIMEOUT_GROWTH_FACTOR)
      out.push(`timeout lengthened ${before.timeout} → ${after.timeout}`);
  }
  return out;
}

/**
 * How `after` lets less through than `before`, one phrase each (the mirror of
 * approvalWeakenings; a gate can be both, e.g. a higher quorum with a wider approver list).
 */
export function approvalTightenings(before: ApprovalConfig, after: ApprovalConfig): string[] {
  const out: string[] = [];
  if (after.quorum > before.quorum)
    out.push(
      `quorum raised ${before.quorum} → ${after.quorum} (${after.quorum} approvals now needed)`,
    );
  out.push(...approverNarrowings(before.approvers, after.approvers));
  if (!after.allowInitiator && before.allowInitiator)
    out.push("allowInitiator turned off (the run's initiator may no longer approve their own run)");
  if (after.onTimeout !== "approve" && before.onTimeout === "approve")
    out.push(`onTimeout changed to ${after.onTimeout} (no decision no longer approves)`);
  return out;
}

type Approvers = ApprovalConfig["approvers"];

/** Roles that may decide: the listed ones, none when only users are listed, else approver and above. */
function decidingRoles(approvers: Approvers): readonly string[] {
  if (approvers.roles !== undefined) return approvers.roles;
  return approvers.users !== undefined ? [] : ROLES.slice(ROLES.indexOf("approver"));
}

/**
 * Who may decide in `wider` but not in `narrower`: the list dropped altogether (anyone with the
 * approver role or above), else the users and roles only `wider` lets in. Widening reads it
 * before → after, narrowing after → before.
 */
function approversGained(narrower: Approvers, wider: Approvers) {
  const restricted = (a: Approvers) => a.roles !== undefined || a.users !== undefined;
  if (restricted(narrower) && !restricted(wider))
    return { unrestricted: true, users: [], roles: [] };
  return {
    unrestricted: false,
    users: restricted(narrower)
      ? (wider.users ?? []).filter((u) => !(narrower.users ?? []).includes(u))
      : [],
    roles: decidingRoles(wider).filter((r) => !decidingRoles(narrower).includes(r)),
  };
}

function approverWidenings(before: Approvers, after: Approvers): string[] {
  const g = approversGained(before, after);
  if (g.unrestricted)
    return ["approver list removed (anyone with the approver role or above may now decide)"];
  return [
    ...(g.users.length ? [`approvers widened: adds users ${g.users.join(", ")}`] : []),
    ...(g.roles.length ? [`approvers widened: adds roles ${g.roles.join(", ")}`] : []),
  ];
}

function approverNarrowings(before: Approvers, after: Approvers): string[] {
  const g = approversGained(after, before);
  if (g.unrestricted) return ["approver list added (fewer people may decide)"];
  return [
    ...(g.users.length ? [`approvers narrowed: removes users ${g.users.join(", ")}`] : []),
    ...(g.roles.length ? [`approvers narrowed: removes roles ${g.roles.join(", ")}`] : []),
  ];
}

/**
 * Steps that in the base ran only after gate `gateId` approved (not reachable from a root without
 * crossing its `approved` edges) and in the proposal are reachable without it. Joins run when any incoming edge
 * was taken (SPEC §3), so one new edge from elsewhere is enough to bypass the gate.
 */
function bypassedSteps(change: Change, gateId: string): string[] {
  const gatedIn = (definition: WorkflowDefinition): Set<string> | undefined => {
    const scope = scopeOf(definition.steps, definition.edges, gateId, 0);
    if (!scope) return undefined;
    const graph = buildGraph({
      steps: scope.steps,
      edges: effectiveEdges(scope.steps, scope.edges),
    });
    const reached = reachFromRoots(
      graph,
      (edge) => edge.from === gateId && edge.port === "approved",
    );
    const unreachable = new Set(unreachableSteps(graph));
    return new Set(graph.ids.filter((id) => !reached.has(id) && !unreachable.has(id)));
  };
  const before = gatedIn(change.base);
  const after = gatedIn(change.proposed);
  if (!before || !after) return [];
  const stillThere = new Set(
    scopeOf(change.proposed.steps, change.proposed.edges, gateId, 0)?.steps.map((s) => s.id),
  );
  return [...before].filter((id) => stillThere.has(id) && !after.has(id));
}

/** The steps/edges list (top level or a loop body) that contains `id`. */
function scopeOf(
  steps: readonly Step[],
  edges: readonly Edge[] | undefined,
  id: string,
  depth: number,
): { steps: readonly Step[]; edges: readonly Edge[] | undefined } | undefined {
  if (steps.some((s) => s.id === id)) return { steps, edges };
  if (depth > 32) return undefined;
  for (const step of steps) {
    if (step.type !== "loop" || !step.config.body) continue;
    const found = scopeOf(step.config.body.steps, step.config.body.edges, id, depth + 1);
    if (found) return found;
  }
  return undefined;
}

/** Secrets the base never referenced; high when the step using one calls a new or dynamic host. */
export function secretReasons(change: Change): RiskReason[] {
  const known = new Set(definitionReferences(change.base).secrets);
  const reasons: RiskReason[] = [];
  for (const { step, prefix } of change.steps) {
    // One-step definition: reuses refs.ts's secret extraction (templates and script env mapping).
    const shallow =
      step.type === "loop" ? { ...step, config: { ...step.config, body: undefined } } : step;
    const secrets = definitionReferences({ steps: [shallow] }).secrets.filter((s) => !known.has(s));
    if (secrets.length === 0) continue;
    const newHosts = newHostsOf(change, step);
    const dynamic = stepOutboundUrls(step).some(({ url }) => urlHost(url) === "dynamic");
    for (const secret of secrets) {
      const exposure =
        newHosts.length > 0
          ? ` and sends it to ${newHosts.join(", ")}, a domain no version used before`
          : dynamic
            ? " and sends it to a host chosen at run time"
            : "";
      reasons.push({
        rule: RISK_RULES.newSecret,
        level: exposure ? "high" : "medium",
        message: `${typed(step, prefix)} uses secret ${secret}, which the current version does not use${exposure}`,
        stepId: step.id,
      });
    }
  }
  return reasons;
}

/** Numeric limits where a larger value loosens the workflow. */
const RAISABLE_LIMITS = [
  "maxSteps",
  "timeoutMs",
  "maxParallel",
  "maxConcurrentRuns",
] as const satisfies ReadonlyArray<keyof Constraints>;

/** Constraints the proposal loosens (each needs a reviewer ranked above the proposer). */
export function constraintReasons(change: Change): RiskReason[] {
  const a = change.base.constraints;
  const b = change.proposed.constraints;
  const reason = (message: string): RiskReason => ({
    rule: RISK_RULES.constraintLoosened,
    level: "high",
    message,
  });
  const out: RiskReason[] = [];
  if (b.allowSelfModification && !a.allowSelfModification)
    out.push(
      reason(
        "turns on constraints.allowSelfModification (the workflow may then propose changes to itself)",
      ),
    );
  for (const limit of RAISABLE_LIMITS) {
    if (b[limit] > a[limit])
      out.push(reason(`raises constraints.${limit} ${a[limit]} → ${b[limit]}`));
  }
  const unforbidden = a.forbiddenStepTypes.filter((t) => !b.forbiddenStepTypes.includes(t));
  if (unforbidden.length > 0)
    out.push(
      reason(`stops forbidding ${unforbidden.join(", ")} steps (constraints.forbiddenStepTypes)`),
    );
  return out;
}

/**
 * Whether running the step can affect the outside world or run arbitrary logic: the catalog's
 * `sideEffect` flag, plus `code` (custom logic cannot be reviewed as data) and loops that start
 * child workflows. Script and approval steps have rules of their own.
 */
function isSideEffecting(step: Step): boolean {
  if (step.type === "script" || step.type === "approval") return false;
  return (
    SIDE_EFFECT_STEP_TYPES.includes(step.type) ||
    step.type === "code" ||
    (step.type === "loop" && step.config.workflow !== undefined)
  );
}

/** Side-effecting steps added, changed beyond their display name, or removed. */
export function sideEffectReasons(change: Change): RiskReason[] {
  const reasons: RiskReason[] = [];
  for (const { step, prefix, status, changes } of change.steps) {
    if (!isSideEffecting(step)) continue;
    const meaningful = changes.filter((c) => !(c.path.length === 1 && c.path[0] === "name"));
    if (status === "changed" && meaningful.length === 0) continue;
    const message =
      status === "added"
        ? `adds ${typed(step, prefix)}`
        : `changes ${typed(step, prefix)}: ${fieldList(meaningful)}`;
    reasons.push({ rule: RISK_RULES.sideEffectStep, level: "medium", message, stepId: step.id });
  }
  for (const { step, prefix } of change.removed) {
    if (isSideEffecting(step))
      reasons.push({
        rule: RISK_RULES.sideEffectStep,
        level: "medium",
        message: `removes ${typed(step, prefix)}`,
        stepId: step.id,
      });
  }
  return reasons;
}

/** Edges between steps that exist on both sides added, removed or changed: which steps run changes. */
export function edgeRewiringReasons(change: Change): RiskReason[] {
  const survives = (id: string) => change.baseSteps.has(id) && change.proposedSteps.has(id);
  const reasons: RiskReason[] = [];
  const visit = (graph: GraphDiff, prefix: string) => {
    const between = (e: Edge) => survives(e.from) && survives(e.to);
    const push = (message: string) =>
      reasons.push({ rule: RISK_RULES.edgeRewired, level: "medium", message });
    for (const e of graph.edges.added.filter(between))
      push(`rewires the graph: adds edge ${edgeLabel(e, prefix)}`);
    for (const e of graph.edges.removed.filter(between))
      push(`rewires the graph: removes edge ${edgeLabel(e, prefix)}`);
    for (const c of graph.edges.changed)
      push(`changes edge ${edgeLabel(c.after, prefix)}: ${fieldValues(c.changes)}`);
    for (const c of graph.steps.changed as readonly StepChange[])
      if (c.body) visit(c.body, `${prefix}${c.id}/`);
  };
  visit(change.diff, "");
  return reasons;
}

// --- verdicts and the assessment -----------------------------------------------------------

interface PolicySpec {
  readonly policy: PolicyName;
  readonly rules: ReadonlyArray<(change: Change) => RiskReason[]>;
  readonly okMessage: string;
  readonly blocking: (change: Change, reasons: readonly RiskReason[]) => boolean;
}

const POLICY_SPECS: readonly PolicySpec[] = [
  {
    policy: POLICIES.forbiddenStepTypes,
    rules: [forbiddenStepTypeReasons],
    okMessage: "No forbidden step types.",
    blocking: () => true,
  },
  {
    policy: POLICIES.scriptSteps,
    rules: [scriptStepReasons],
    okMessage: "No script step added or changed.",
    blocking: (change) => !change.input.policy.scriptStepsEnabled,
  },
  {
    policy: POLICIES.outboundDomains,
    rules: [outboundDomainReasons],
    okMessage: "No new outbound domains.",
    blocking: () => false,
  },
  {
    policy: POLICIES.approvalGates,
    rules: [approvalGateReasons],
    okMessage: "No approval gate removed, weakened or bypassed.",
    blocking: () => false,
  },
  {
    policy: POLICIES.requiredApprovals,
    rules: [requiredApprovalReasons],
    okMessage: "Every step the workspace requires an approval before follows one.",
    blocking: () => true,
  },
  {
    policy: POLICIES.secrets,
    rules: [secretReasons],
    okMessage: "No newly referenced secrets.",
    blocking: () => false,
  },
  {
    policy: POLICIES.constraints,
    rules: [constraintReasons],
    okMessage: "No constraint loosened.",
    blocking: () => false,
  },
];

/** Rules outside any policy: they raise the risk level but never give a verdict. */
const OTHER_RULES: ReadonlyArray<(change: Change) => RiskReason[]> = [
  sideEffectReasons,
  edgeRewiringReasons,
];

/** Assesses a proposal; throws DefinitionValidationError when either side does not parse. */
export function assessChange(input: AssessInput): ChangeAssessment {
  const change = describeChange(input);
  const reasons: RiskReason[] = [];
  const verdicts: PolicyVerdict[] = [];
  let needsSeniorReviewer = false;
  for (const spec of POLICY_SPECS) {
    const found = spec.rules.flatMap((rule) => rule(change));
    reasons.push(...found);
    if (spec.policy === POLICIES.constraints) needsSeniorReviewer = found.length > 0;
    verdicts.push(verdictOf(spec, change, found));
  }
  reasons.push(...OTHER_RULES.flatMap((rule) => rule(change)));
  return { risk: maxLevel(reasons), reasons, verdicts, needsSeniorReviewer };
}

function verdictOf(spec: PolicySpec, change: Change, found: readonly RiskReason[]): PolicyVerdict {
  let reasons = found;
  const notes = reasons.filter((r) => INFORMATIONAL_RULES.has(r.rule));
  if (notes.length === reasons.length)
    return {
      policy: spec.policy,
      ok: true,
      blocking: false,
      message: [spec.okMessage, ...notes.map((r) => sentence(r.message))].join(" "),
    };
  reasons = reasons.filter((r) => !INFORMATIONAL_RULES.has(r.rule));
  const stepIds = [...new Set(reasons.flatMap((r) => (r.stepId ? [r.stepId] : [])))];
  const blocking = spec.blocking(change, reasons);
  const suffix =
    spec.policy === POLICIES.scriptSteps && blocking
      ? " Script steps are disabled in this workspace."
      : "";
  return {
    policy: spec.policy,
    ok: false,
    blocking,
    message: `${reasons.map((r) => sentence(r.message)).join(" ")}${suffix}`,
    ...(stepIds.length > 0 ? { stepIds } : {}),
  };
}

function sentence(text: string): string {
  const capital = text.charAt(0).toUpperCase() + text.slice(1);
  return /[.!?]$/.test(capital) ? capital : `${capital}.`;
}

export function maxLevel(reasons: readonly Pick<RiskReason, "level">[]): RiskLevel {
  return reasons.reduce<RiskLevel>(
    (max, r) => (RISK_LEVELS.indexOf(r.level) > RISK_LEVELS.indexOf(max) ? r.level : max),
    "low",
  );
}
