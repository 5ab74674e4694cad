/**
 * An SDK call's result as the driver classifies it (`CallOutcome`, the `SdkOp`s of a 206), and the
 * records every path that handles one writes on the run (ops.ts for a response, checkpoint.ts for
 * steps the SDK ran inline): the run's start, a step that ran, a failed call retried or failing the
 * run, and a run failed by the executor itself.
 */
import type { TxCtx } from "./context";
import { finishExecution } from "./lifecycle";
import type { Job } from "./queue";
import type { RegisteredFunction } from "./registry";
import { callConcurrency, later, memoize, type ExecutionState } from "./execution-state";

export interface SdkOp {
  id: string;
  op: string;
  name?: string;
  displayName?: string;
  opts?: Record<string, unknown> | null;
  data?: unknown;
  error?: Record<string, unknown>;
  timing?: { a?: number; b?: number };
}

export type ErrorObject = Record<string, unknown> & { name?: string; message?: string };

export type CallOutcome =
  | { kind: "complete"; data: unknown }
  | { kind: "ops"; ops: SdkOp[]; retryAfterMs?: number }
  | {
      kind: "error";
      error: ErrorObject;
      retriable: boolean;
      retryAfterMs?: number;
      status?: number;
    };

export interface CallInfo {
  job: Job;
  fn: RegisteredFunction;
  startedAt: Date;
  durationMs: number;
}

/**
 * The run's first recorded SDK call (its answer, or its first checkpoint) marks it started and
 * arms `timeouts.finish`.
 */
export function markExecutionStarted(
  c: TxCtx,
  s: ExecutionState,
  fn: RegisteredFunction,
  startedAt: Date,
): void {
  if (s.row.startedAt || s.startedAt) return;
  s.startedAt = startedAt;
  if (fn.timeouts.finishMs) {
    later(s, {
      kind: "run_timeout",
      runAt: c.now + fn.timeouts.finishMs,
      payload: { type: "finish" },
    });
  }
}

/** A step that ran (answered in a 206, or checkpointed): memo `{data}` and its history entry. */
export function recordStepRun(
  s: ExecutionState,
  op: SdkOp,
  timing: { startedAt?: Date | null; durationMs?: number | null; attempt?: number },
  via?: { race?: boolean; ck?: string },
): void {
  const name = op.displayName ?? op.name ?? op.id;
  memoize(s, { id: op.id, name, op: "StepRun" }, { data: op.data ?? null }, via);
  s.history.push({ type: "step.completed", stepId: op.id, stepName: name, ...timing });
}

/**
 * A failed call (function-level error, transport error, bad response): retried with backoff while
 * attempts remain, otherwise the run fails.
 */
export async function callFailed(
  c: TxCtx,
  s: ExecutionState,
  call: CallInfo,
  error: ErrorObject,
  retriable: boolean,
  retryAfterMs?: number,
): Promise<void> {
  const { job, fn } = call;
  const timing = { startedAt: call.startedAt, durationMs: call.durationMs, attempt: job.attempt };
  if (retriable && job.attempt + 1 < fn.maxAttempts) {
    const delay = retryAfterMs ?? c.ex.opts.backoff(job.attempt + 1);
    // A keyed discovery (parallelism "inngest") is retried under its key, as Inngest retries the
    // same queue item.
    later(s, {
      kind: "call",
      stepId: job.stepId,
      attempt: job.attempt + 1,
      runAt: c.now + delay,
      concurrency: callConcurrency(s),
      ...(job.key ? { key: job.key } : {}),
    });
    s.history.push({
      type: "function.errored",
      stepId: job.stepId,
      error,
      data: { retryInMs: delay },
      ...timing,
    });
    return;
  }
  s.history.push({ type: "function.failed", stepId: job.stepId, error, ...timing });
  await finishExecution(c, s, { status: "failed", error });
}

export async function failExecution(c: TxCtx, s: ExecutionState, message: string): Promise<void> {
  const error = { name: "Error", message };
  c.ex.log.error("run failed by the executor", {
    runId: s.row.id,
    functionId: s.row.functionId,
    error: message,
  });
  await finishExecution(c, s, { status: "failed", error });
}
