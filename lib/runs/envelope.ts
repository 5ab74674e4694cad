import type { RunRepository } from "../workflow/repository";
import { assertNever, type FailureClass, type RunStatus } from "../workflow/status";

/**
 * The agent-facing outcome of a run (SPEC §9 envelope), built by one pure function shared by the
 * MCP server (from service rows, dates as `Date`) and the CLI (from /api/v1 JSON, dates as ISO
 * strings): `ok` (false only for `failed`), `status`, `executionId` (the run id), `output`, the
 * latest attempt of every step, `requiresApproval` for the first open gate, `error`.
 */
export const ENVELOPE_STATUSES = [
  "ok",
  "needs_approval",
  "cancelled",
  "failed",
  "running",
] as const;
export type EnvelopeStatus = (typeof ENVELOPE_STATUSES)[number];

export interface EnvelopeStep<D = Date> {
  stepId: string;
  path: string;
  type: string;
  status: string;
  attempt: number;
  port: string | null;
  skipReason: string | null;
  output: unknown;
  error: Record<string, unknown> | null;
  /** user | operational | internal for a failed attempt (CONVENTIONS habit 8), else null. */
  failureClass: FailureClass | null;
  startedAt: D | null;
  finishedAt: D | null;
  durationMs: number | null;
}

export interface RunEnvelope<D = Date> {
  ok: boolean;
  status: EnvelopeStatus;
  executionId: string;
  /** The run's own status (`queued … timed_out`), finer than `status`. */
  runStatus: RunStatus;
  /** Null for an inline run (an unsaved definition). */
  workflowId: string | null;
  workflowSlug: string | null;
  version: string;
  input: Record<string, unknown>;
  output: unknown;
  /** Repository context: the commit the run is pinned to (sha null until resolved). */
  repository: RunRepository | null;
  steps: EnvelopeStep<D>[];
  /** The first open gate. `resumeToken` is null unless the caller may decide gates (approver+). */
  requiresApproval?: {
    approvalId: string;
    stepId: string;
    prompt: string;
    items: unknown;
    resumeToken: string | null;
    canDecide: boolean;
    whyNot: string | null;
    expiresAt: D;
    /** The fields an approver fills when approving (as workflow `inputs`), when the gate has a form. */
    form?: Record<string, unknown>;
    priority?: string;
    dueAt?: D | null;
  };
  /** How many gates are open (parallel branches can wait at several at once). */
  pendingApprovals: number;
  error?: Record<string, unknown>;
  createdAt: D;
  finishedAt: D | null;
}

/** What the envelope reads of a run (`getRun`'s answer, or `GET /api/v1/runs/{id}`). */
export interface EnvelopeRunSource<D = Date> {
  id: string;
  status: RunStatus;
  workflowId: string | null;
  workflowSlug: string | null;
  version: string;
  input: Record<string, unknown>;
  output?: unknown;
  error?: Record<string, unknown> | null;
  repository?: RunRepository | null;
  createdAt: D;
  finishedAt: D | null;
  pendingApprovals: {
    id: string;
    stepId: string;
    prompt: string;
    items: unknown;
    resumeToken: string | null;
    canDecide: boolean;
    whyNot: string | null;
    expiresAt: D;
    form?: Record<string, unknown> | null;
    priority?: string;
    dueAt?: D | null;
  }[];
}

/** What the envelope reads of a step attempt (`listRunSteps`, or `GET /api/v1/runs/{id}/steps`). */
export interface EnvelopeAttemptSource<D = Date> {
  stepId: string;
  path: string;
  stepType: string;
  status: string;
  attempt: number;
  port: string | null;
  skipReason: string | null;
  output?: unknown;
  error?: Record<string, unknown> | null;
  failureClass?: FailureClass | null;
  startedAt: D | null;
  finishedAt: D | null;
  durationMs: number | null;
}

/**
 * Envelope status of a run. An unfinished run with an open gate `needs_approval` even while
 * another branch still runs: the caller can act now.
 */
export function envelopeStatus(status: RunStatus, hasOpenGate: boolean): EnvelopeStatus {
  switch (status) {
    case "completed":
      return "ok";
    case "failed":
    case "timed_out":
      return "failed";
    case "cancelled":
      return "cancelled";
    case "queued":
    case "running":
    case "waiting":
    case "cancel_requested":
      return hasOpenGate && status !== "cancel_requested" ? "needs_approval" : "running";
    default:
      return assertNever(status);
  }
}

/** The envelope of a run from the run and its step attempts (in the order they were recorded). */
export function buildRunEnvelope<D>(
  run: EnvelopeRunSource<D>,
  attempts: readonly EnvelopeAttemptSource<D>[],
): RunEnvelope<D> {
  // Latest attempt per step path, in the order the steps first ran.
  const latest = new Map<string, EnvelopeAttemptSource<D>>();
  for (const a of attempts) {
    const seen = latest.get(a.path);
    if (!seen || a.attempt >= seen.attempt) latest.set(a.path, a);
  }
  const gate = run.pendingApprovals[0];
  const status = envelopeStatus(run.status, gate !== undefined);
  return {
    ok: status !== "failed",
    status,
    executionId: run.id,
    runStatus: run.status,
    workflowId: run.workflowId,
    workflowSlug: run.workflowSlug,
    version: run.version,
    input: run.input,
    output: run.output ?? null,
    repository: run.repository ?? null,
    steps: [...latest.values()].map((s) => ({
      stepId: s.stepId,
      path: s.path,
      type: s.stepType,
      status: s.status,
      attempt: s.attempt,
      port: s.port,
      skipReason: s.skipReason,
      output: s.output ?? null,
      error: s.error ?? null,
      failureClass: s.failureClass ?? null,
      startedAt: s.startedAt,
      finishedAt: s.finishedAt,
      durationMs: s.durationMs,
    })),
    ...(gate
      ? {
          requiresApproval: {
            approvalId: gate.id,
            stepId: gate.stepId,
            prompt: gate.prompt,
            items: gate.items,
            resumeToken: gate.resumeToken,
            canDecide: gate.canDecide,
            whyNot: gate.whyNot,
            expiresAt: gate.expiresAt,
            ...(gate.form ? { form: gate.form } : {}),
            ...(gate.priority ? { priority: gate.priority } : {}),
            ...(gate.dueAt ? { dueAt: gate.dueAt } : {}),
          },
        }
      : {}),
    pendingApprovals: run.pendingApprovals.length,
    ...(run.error ? { error: run.error } : {}),
    createdAt: run.createdAt,
    finishedAt: run.finishedAt,
  };
}
