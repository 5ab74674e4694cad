import { z } from "zod";
import type { ApprovalStatus } from "../schemas/runs";
import type { TaskStatus } from "../schemas/tasks";

/**
 * Run and step statuses, their predicates and the allowed transitions (SPEC §5). This is the one
 * module that knows the status rules: every status write goes through the compare-and-set helpers
 * in server/services/run-state/transition.ts, whose `WHERE status IN (…)` is computed from the
 * tables below (transitionSources), so a move the table lacks is refused, not written.
 */

export const RUN_STATUSES = [
  "queued",
  "running",
  "waiting",
  "cancel_requested",
  "completed",
  "failed",
  "cancelled",
  "timed_out",
] as const;
export const RunStatus = z.enum(RUN_STATUSES);
export type RunStatus = z.infer<typeof RunStatus>;

export const STEP_STATUSES = [
  "pending",
  "running",
  "waiting",
  "completed",
  "failed",
  "skipped",
  "cancelled",
] as const;
export const StepStatus = z.enum(STEP_STATUSES);
export type StepStatus = z.infer<typeof StepStatus>;

export const TERMINAL_RUN_STATUSES = [
  "completed",
  "failed",
  "cancelled",
  "timed_out",
] as const satisfies readonly RunStatus[];
export type TerminalRunStatus = (typeof TERMINAL_RUN_STATUSES)[number];
export const TERMINAL_STEP_STATUSES = [
  "completed",
  "failed",
  "skipped",
  "cancelled",
] as const satisfies readonly StepStatus[];
export type TerminalStepStatus = (typeof TERMINAL_STEP_STATUSES)[number];

/**
 * Failure classes (CONVENTIONS habit 8): `user` — bad config or input, never retried, shown to the
 * author; `operational` — transient (network, 429, 5xx, timeouts), retried per `retry`;
 * `internal` — a bug in Sluice, logged in full, not retried.
 */
export const FAILURE_CLASSES = ["user", "operational", "internal"] as const;
export const FailureClass = z.enum(FAILURE_CLASSES);
export type FailureClass = z.infer<typeof FailureClass>;

export function isRetryableFailure(failureClass: FailureClass): boolean {
  switch (failureClass) {
    case "operational":
      return true;
    case "user":
    case "internal":
      return false;
    default:
      return assertNever(failureClass);
  }
}

export function isTerminalRunStatus(status: RunStatus): status is TerminalRunStatus {
  switch (status) {
    case "completed":
    case "failed":
    case "cancelled":
    case "timed_out":
      return true;
    case "queued":
    case "running":
    case "waiting":
    case "cancel_requested":
      return false;
    default:
      return assertNever(status);
  }
}

export function isTerminalStepStatus(status: StepStatus): status is TerminalStepStatus {
  switch (status) {
    case "completed":
    case "failed":
    case "skipped":
    case "cancelled":
      return true;
    case "pending":
    case "running":
    case "waiting":
      return false;
    default:
      return assertNever(status);
  }
}

/**
 * Active = counts against admission limits (SPEC §5). `cancel_requested` still holds its slot:
 * a script may be running until the SIGKILL deadline.
 */
export function isActiveRunStatus(status: RunStatus): boolean {
  switch (status) {
    case "running":
    case "waiting":
    case "cancel_requested":
      return true;
    case "queued":
    case "completed":
    case "failed":
    case "cancelled":
    case "timed_out":
      return false;
    default:
      return assertNever(status);
  }
}

/**
 * Named status sets for queries (`inArray(runs.status, …)`, `status in (…)`): every service uses
 * these instead of literal lists, and status.test.ts checks each against the predicates above.
 */
/** Admitted and holding a slot (counts against admission limits): see isActiveRunStatus. */
export const ACTIVE_RUN_STATUSES = [
  "running",
  "waiting",
  "cancel_requested",
] as const satisfies readonly RunStatus[];
/** Not finished yet: queued or active. */
export const UNFINISHED_RUN_STATUSES = [
  "queued",
  ...ACTIVE_RUN_STATUSES,
] as const satisfies readonly RunStatus[];
/** Executing (no cancel pending): `running | waiting`, for runs and steps alike (isActive). */
export const EXECUTING_STATUSES = ["running", "waiting"] as const satisfies readonly RunStatus[] &
  readonly StepStatus[];
/** A step attempt that has not ended: pending, running or waiting. */
export const OPEN_STEP_STATUSES = [
  "pending",
  ...EXECUTING_STATUSES,
] as const satisfies readonly StepStatus[];

export function isActiveStepStatus(status: StepStatus): boolean {
  return status === "running" || status === "waiting";
}

/** Works for both run and step statuses: their terminal sets agree on every shared name. */
export function isTerminal(status: RunStatus | StepStatus): boolean {
  return (
    (TERMINAL_RUN_STATUSES as readonly string[]).includes(status) ||
    (TERMINAL_STEP_STATUSES as readonly string[]).includes(status)
  );
}

/** `running | waiting` for runs and steps alike (`cancel_requested` is transitional, see isActiveRunStatus). */
export function isActive(status: RunStatus | StepStatus): boolean {
  return status === "running" || status === "waiting";
}

/**
 * Allowed run transitions. Notes on the less obvious ones:
 * - queued → cancelled: cancelling a queued run has nothing to stop, so it skips cancel_requested.
 * - queued → failed: admission can refuse a run (e.g. its pinned version became invalid).
 * - running/waiting → cancelled: an approval rejected with no `rejected` edge ends the run cancelled.
 * - waiting → completed/failed: the waiting step may be the last one.
 * - cancel_requested → completed/failed/timed_out: the run may finish before the cancel lands; the
 *   compare-and-set decides which write wins.
 */
export const RUN_TRANSITIONS: Readonly<Record<RunStatus, readonly RunStatus[]>> = {
  queued: ["running", "cancelled", "failed"],
  running: ["waiting", "completed", "failed", "cancel_requested", "cancelled", "timed_out"],
  waiting: ["running", "completed", "failed", "cancel_requested", "cancelled", "timed_out"],
  cancel_requested: ["cancelled", "completed", "failed", "timed_out"],
  completed: [],
  failed: [],
  cancelled: [],
  timed_out: [],
};

/**
 * Allowed step-attempt transitions. Each attempt is its own row (SPEC §5), so a retry inserts a new
 * `pending` row instead of moving a failed row back: terminal statuses have no way out.
 */
export const STEP_TRANSITIONS: Readonly<Record<StepStatus, readonly StepStatus[]>> = {
  pending: ["running", "skipped", "cancelled"],
  running: ["waiting", "completed", "failed", "cancelled"],
  waiting: ["running", "completed", "failed", "cancelled"],
  completed: [],
  failed: [],
  skipped: [],
  cancelled: [],
};

/** Whether a run may move from `from` to `to`. Same-status "transitions" are refused. */
export function canTransition(from: RunStatus, to: RunStatus): boolean {
  return RUN_TRANSITIONS[from].includes(to);
}

export function canTransitionStep(from: StepStatus, to: StepStatus): boolean {
  return STEP_TRANSITIONS[from].includes(to);
}

/**
 * The statuses a row may be in for a write that sets `to` — the `from` of its compare-and-set
 * (server/services/run-state/transition.ts). With several targets (the choice is made in SQL, e.g.
 * running-or-waiting), every target must be allowed from the status or be the status itself: a
 * write that picks the row's own status only touches it.
 */
export function transitionSources<S extends string>(
  table: Readonly<Record<S, readonly S[]>>,
  to: S | readonly S[],
): S[] {
  const targets: readonly S[] = typeof to === "string" ? [to] : to;
  return (Object.keys(table) as S[]).filter(
    (from) =>
      !targets.every((t) => t === from) &&
      targets.every((t) => t === from || table[from].includes(t)),
  );
}

export function runStatusLabel(status: RunStatus): string {
  switch (status) {
    case "queued":
      return "Queued";
    case "running":
      return "Running";
    case "waiting":
      return "Waiting";
    case "cancel_requested":
      return "Cancelling";
    case "completed":
      return "Completed";
    case "failed":
      return "Failed";
    case "cancelled":
      return "Cancelled";
    case "timed_out":
      return "Timed out";
    default:
      return assertNever(status);
  }
}

export function stepStatusLabel(status: StepStatus): string {
  switch (status) {
    case "pending":
      return "Pending";
    case "running":
      return "Running";
    case "waiting":
      return "Waiting";
    case "completed":
      return "Completed";
    case "failed":
      return "Failed";
    case "skipped":
      return "Skipped";
    case "cancelled":
      return "Cancelled";
    default:
      return assertNever(status);
  }
}

/** Compile-time exhaustiveness check for switches; throws if reached at run time with bad data. */
export function assertNever(value: never): never {
  throw new Error(`Unexpected value: ${JSON.stringify(value)}`);
}

// --- approval and task gates (SPEC §4) ---------------------------------------------------

/**
 * Allowed approval transitions: a pending approval is decided once — approved or rejected (its
 * quorum reached), expired at its timeout, or cancelled with its run.
 */
export const APPROVAL_TRANSITIONS: Readonly<Record<ApprovalStatus, readonly ApprovalStatus[]>> = {
  pending: ["approved", "rejected", "expired", "cancelled"],
  approved: [],
  rejected: [],
  expired: [],
  cancelled: [],
};

/** Allowed task transitions: a pending task is settled once, expires, or is cancelled with its run. */
export const TASK_TRANSITIONS: Readonly<Record<TaskStatus, readonly TaskStatus[]>> = {
  pending: ["completed", "failed", "expired", "cancelled"],
  completed: [],
  failed: [],
  expired: [],
  cancelled: [],
};

// --- change proposals (SPEC §8) ------------------------------------------------------------

export const PROPOSAL_STATUSES = [
  "pending",
  "approved",
  "applied",
  "rejected",
  "failed",
  "expired",
  "superseded",
] as const;
export const ProposalStatus = z.enum(PROPOSAL_STATUSES);
export type ProposalStatus = z.infer<typeof ProposalStatus>;

/** Statuses a proposal can still leave: it awaits review or application. */
export const OPEN_PROPOSAL_STATUSES = [
  "pending",
  "approved",
] as const satisfies readonly ProposalStatus[];

/**
 * Allowed proposal transitions. A review decides `pending` once (approve or reject); apply moves
 * `approved → applied`, or `→ failed` when the re-check on apply finds a blocking problem; expiry
 * and a sibling's apply on the same base close any open proposal.
 */
export const PROPOSAL_TRANSITIONS: Readonly<Record<ProposalStatus, readonly ProposalStatus[]>> = {
  pending: ["approved", "rejected", "expired", "superseded", "failed"],
  approved: ["applied", "expired", "superseded", "failed"],
  applied: [],
  rejected: [],
  failed: [],
  expired: [],
  superseded: [],
};

export function canTransitionProposal(from: ProposalStatus, to: ProposalStatus): boolean {
  return PROPOSAL_TRANSITIONS[from].includes(to);
}

/** Open = may still be reviewed, applied, expired or superseded. */
export function isOpenProposalStatus(status: ProposalStatus): boolean {
  switch (status) {
    case "pending":
    case "approved":
      return true;
    case "applied":
    case "rejected":
    case "failed":
    case "expired":
    case "superseded":
      return false;
    default:
      return assertNever(status);
  }
}

export function proposalStatusLabel(status: ProposalStatus): string {
  switch (status) {
    case "pending":
      return "Pending review";
    case "approved":
      return "Approved";
    case "applied":
      return "Applied";
    case "rejected":
      return "Rejected";
    case "failed":
      return "Failed";
    case "expired":
      return "Expired";
    case "superseded":
      return "Superseded";
    default:
      return assertNever(status);
  }
}
