/**
 * Proposal risk rules other than approval gates: forbidden and script steps, new outbound hosts,
 * new secrets, loosened constraints, side effects and rewired edges.
 */
import { SIDE_EFFECT_STEP_TYPES } from "./catalog";
import { edgeLabel, fieldList, fieldValues } from "./change-summary";
import type { Constraints } from "./definition";
import type { GraphDiff, StepChange } from "./diff";
import { fieldText } from "./issues";
import { preview } from "./json";
import { definitionReferences } from "./refs";
import type { Edge, Step } from "./steps";
import { validateDefinition } from "./validate";
import {
  RISK_RULES,
  name,
  newHostsOf,
  stepOutboundUrls,
  typed,
  urlHost,
  type Change,
  type RiskReason,
} from "./proposal-risk-change";

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
