/** Proposal risk rules about approval gates: removed, weakened, bypassed, required or tightened. */
import { ROLES } from "../schemas/roles";
import type { WorkflowDefinition } from "./definition";
import { tryParseDuration } from "./duration";
import { buildGraph, reachFromRoots, unreachableSteps } from "./graph";
import { effectiveEdges } from "./normalize";
import { requiredApprovalViolations } from "./required-approvals";
import type { Edge, Step, StepOfType } from "./steps";
import {
  APPROVAL_TIMEOUT_GROWTH_FACTOR,
  RISK_RULES,
  name,
  type Change,
  type RiskReason,
} from "./proposal-risk-change";

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
