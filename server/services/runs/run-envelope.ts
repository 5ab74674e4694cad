import "server-only";
import { assertNever, type RunStatus } from "@/lib/workflow/status";
import type { ServiceContext } from "../context";
import { getRun } from "./get-run";
import { listRunSteps } from "./list-run-steps";

/**
 * The agent-facing outcome of a run (SPEC §9 envelope), shared by MCP `run_workflow`/`get_run`
 * and anything else that answers "how did it go" in one object:
 * `ok` (false only for `failed`), `status`, `executionId` (the run id), `output`, the latest
 * attempt of every step, `requiresApproval` for the first open gate, `error`.
 */
export const ENVELOPE_STATUSES = [
  "ok",
  "needs_approval",
  "cancelled",
  "failed",
  "running",
] as const;
export type EnvelopeStatus = (typeof ENVELOPE_STATUSES)[number];

export interface EnvelopeStep {
  stepId: string;
  path: string;
  type: string;
  status: string;
  attempt: number;
  port: string | null;
  skipReason: string | null;
  output: unknown;
  error: Record<string, unknown> | null;
  startedAt: Date | null;
  finishedAt: Date | null;
  durationMs: number | null;
}

export interface RunEnvelope {
  ok: boolean;
  status: EnvelopeStatus;
  executionId: string;
  /** The run's own status (`queued … timed_out`), finer than `status`. */
  runStatus: RunStatus;
  workflowId: string;
  workflowSlug: string | null;
  version: string;
  input: Record<string, unknown>;
  output: unknown;
  steps: EnvelopeStep[];
  /** The first open gate. `resumeToken` is null unless the caller may decide gates (approver+). */
  requiresApproval?: {
    approvalId: string;
    stepId: string;
    prompt: string;
    items: unknown;
    resumeToken: string | null;
    canDecide: boolean;
    whyNot: string | null;
    expiresAt: Date;
  };
  /** How many gates are open (parallel branches can wait at several at once). */
  pendingApprovals: number;
  error?: Record<string, unknown>;
  createdAt: Date;
  finishedAt: Date | null;
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

/** The envelope of one run of the caller's workspace (viewer and up). */
export async function getRunEnvelope({
  ctx,
  input,
}: {
  ctx: ServiceContext;
  input: unknown;
}): Promise<RunEnvelope> {
  const run = await getRun({ ctx, input });
  const attempts = await listRunSteps({ ctx, input: { runId: run.id } });
  // Latest attempt per step path, in the order the steps first ran.
  const latest = new Map<string, (typeof attempts)[number]>();
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
          },
        }
      : {}),
    pendingApprovals: run.pendingApprovals.length,
    ...(run.error ? { error: run.error } : {}),
    createdAt: run.createdAt,
    finishedAt: run.finishedAt,
  };
}
