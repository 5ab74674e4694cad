/**
 * Drives the SDK: one HTTP request per discovery or targeted step. With checkpointing (the
 * default) the request carries `ctx.fn_id` and `ctx.qi_id`, and the SDK runs consecutive steps
 * inline, checkpointing each one (checkpoint.ts) before it answers; without them it answers after
 * every step (classic async mode). Requests carry `max_attempts` so the SDK knows the final
 * attempt, and `disable_immediate_execution` while parallel siblings are pending (execution-state.ts).
 * No transaction is held during the call.
 */
import { sql } from "drizzle-orm";
import { execRows, type Tx } from "../../db/client";
import type { ExecutorPendingSteps, ExecutorExecutionStatus } from "../../db/schema/executor";
import { inTx, type ExecutorContext, type TxCtx } from "./context";
import { parseRetryAfter } from "../../lib/net/retry-after";
import { MAX_WAIT_MS } from "./durations";
import { queueItemRef } from "./checkpoint";
import { canonicalize } from "./jcs";
import { finishExecution } from "./lifecycle";
import { applyCallOutcome } from "./ops";
import {
  failExecution,
  type CallInfo,
  type CallOutcome,
  type ErrorObject,
  type SdkOp,
} from "./call-results";
import { newLeaseToken, type ClaimedExecution, type Job } from "./queue";
import {
  completeJobAndLoadExecution,
  isActiveExecution,
  memoize,
  stateFromSnapshot,
  type Memo,
} from "./execution-state";
import { saveExecution } from "./execution-save";
import { signatureHeader, verifySdkSignature } from "./signing";

/**
 * Runs one call job. Returns the run's next discovery when it was handed off to this worker
 * (see execution-state.ts `handoffToken`): the caller runs it right away in the same slot.
 */
export async function runCallJob(
  ex: ExecutorContext,
  job: Job,
  allowHandoff = true,
): Promise<Job | undefined> {
  const run = job.call?.run;
  const fn = run ? ex.registry.get(run.functionId) : undefined;

  if (
    !run ||
    !isActiveExecution(run.status as ExecutorExecutionStatus) ||
    !fn ||
    fn.status !== "active" ||
    job.attempt >= fn.maxAttempts
  ) {
    await inTx(ex, async (c) => {
      const s = await completeJobAndLoadExecution(c, job);
      if (!s) return;
      if (!fn || fn.status !== "active") {
        const why = !fn
          ? "is not registered with the executor (was the app synced?)"
          : `is ${fn.status}${fn.errors.length ? `: ${fn.errors.join("; ")}` : ""}`;
        await failExecution(c, s, `function "${s.row.functionId}" ${why}`);
      } else {
        // Only reachable when leases were lost repeatedly (a crash or hang on every attempt).
        await failExecution(
          c,
          s,
          `gave up after ${job.attempt} attempts: the call never completed (executor crash or request hang)`,
        );
      }
      await saveExecution(c, s);
    });
    return undefined;
  }

  const memo: Record<string, unknown> = {};
  const stack: string[] = [];
  for (const [stepId, output] of job.call!.memo) {
    memo[stepId] = output;
    stack.push(stepId);
  }
  const body = canonicalize({
    event: run.event,
    events: run.events,
    steps: memo,
    ctx: {
      run_id: job.runId,
      attempt: job.attempt,
      max_attempts: fn.maxAttempts,
      // Parallelism "inngest": the run's ForceStepPlan, as Inngest sends it (execution-state.ts).
      disable_immediate_execution:
        ex.opts.parallelism === "inngest"
          ? Boolean(run.forceStepPlan)
          : Object.keys(run.pending).length > 0,
      use_api: false,
      stack: { stack, current: stack.length },
      // The SDK checkpoints only discovery calls with nothing pending; sent on every call, as Inngest does.
      ...(ex.opts.checkpointing ? { fn_id: fn.id, qi_id: queueItemRef(job) } : {}),
    },
    version: 2,
    defers: {},
  });
  const url = new URL(fn.url);
  url.searchParams.set("fnId", fn.id);
  url.searchParams.set("stepId", job.stepId ?? "step");
  const headers: Record<string, string> = {
    "content-type": "application/json",
    "x-inngest-server-kind": ex.opts.signingKeys.length ? "cloud" : "dev",
    "x-inngest-req-version": "2",
    "x-run-id": job.runId,
  };
  const key = ex.opts.signingKeys[0];
  if (key) headers["x-inngest-signature"] = signatureHeader(key, body);

  const startedAt = new Date();
  const t0 = performance.now();
  let outcome: CallOutcome;
  try {
    const res = await ex.opts.transport({
      method: "POST",
      url: url.toString(),
      headers,
      body,
      timeoutMs: ex.opts.requestTimeoutMs,
    });
    outcome = classify(ex, res.status, res.headers, res.body);
  } catch (e) {
    outcome = {
      kind: "error",
      error: { name: "Error", message: (e as Error).message },
      retriable: true,
    };
  }
  const durationMs = Math.round(performance.now() - t0);
  if (outcome.kind === "error") {
    ex.log.warn("SDK call failed", {
      runId: job.runId,
      functionId: fn.id,
      stepId: job.stepId,
      attempt: job.attempt,
      error: outcome.error.message,
    });
  }

  const token = newLeaseToken();
  // Parallelism "inngest" takes the locked path every time and never hands off: its rules read and
  // write more of the run than the claim-time snapshot guards.
  const coalesced = ex.opts.parallelism === "coalesced";
  const handoffOk = coalesced && allowHandoff && !run.concurrencyKeys.length;
  const info = { job, fn, startedAt, durationMs };
  // Optimistic path for the common answer (steps that ran): no transaction, one guarded statement.
  // (Only when it cannot hit the step limit: failing the run is not a single-statement change.)
  const plain =
    coalesced &&
    isPlainStepResult(outcome) &&
    run.stepCount + outcome.ops.length <= ex.opts.maxStepsPerRun;
  let saved = plain
    ? await saveOptimistically(ex, job, run, info, outcome, handoffOk ? token : undefined)
    : undefined;
  if (saved === undefined) {
    saved = await inTx(ex, async (c) => {
      const s = await completeJobAndLoadExecution(c, job);
      if (!s) return null; // finished or cancelled while the call was in flight: its result is dropped
      // Hand off only if nobody else changed the run's memo since the claim: the next request is
      // then built from the claim-time memo plus this transaction's writes.
      if (handoffOk && s.row.stepCount === job.call!.memo.length) s.handoffToken = token;
      await applyCallOutcome(c, s, info, outcome);
      const res = await saveExecution(c, s);
      return res.handedOff ? { ...res.handedOff, pending: s.pending } : null;
    });
  }
  if (!saved) return undefined;
  const known = new Set(job.call!.memo.map(([id]) => id));
  const memoNext: Array<[string, unknown]> = [
    ...job.call!.memo,
    ...saved.memos
      .filter((m) => !known.has(m.stepId))
      .map((m): [string, unknown] => [m.stepId, m.output]),
  ];
  return {
    id: saved.jobId,
    runId: job.runId,
    kind: "call",
    stepId: saved.stepId,
    attempt: 0,
    claims: 1,
    runAt: ex.clock.now(),
    payload: {},
    leaseToken: token,
    key: null,
    call: {
      run: {
        ...run,
        status: "running",
        pending: saved.pending,
        stepCount: memoNext.length,
        startedAt: run.startedAt ?? startedAt.getTime(),
      },
      memo: memoNext,
    },
  };
}

function isPlainStepResult(outcome: CallOutcome): outcome is Extract<CallOutcome, { kind: "ops" }> {
  return (
    outcome.kind === "ops" && outcome.ops.length > 0 && outcome.ops.every((o) => o.op === "StepRun")
  );
}

/**
 * Applies a plain step result without a transaction: the run state comes from the claim-time
 * snapshot, and one statement writes everything only if the lease and that snapshot still hold.
 * Returns undefined when they did not (or the statement failed): the caller redoes it under the lock.
 */
async function saveOptimistically(
  ex: ExecutorContext,
  job: Job,
  run: ClaimedExecution,
  info: CallInfo,
  outcome: CallOutcome,
  handoffToken: string | undefined,
): Promise<
  | { jobId: number; memos: Memo[]; stepId: string | null; pending: ExecutorPendingSteps }
  | null
  | undefined
> {
  const hooks: Array<() => void> = [];
  const c: TxCtx = {
    tx: ex.db as unknown as Tx,
    ex,
    now: ex.clock.now(),
    afterCommit: (h) => hooks.push(h),
  };
  const s = stateFromSnapshot({
    id: job.runId,
    functionId: run.functionId,
    status: run.status as ExecutorExecutionStatus,
    event: run.event,
    events: run.events,
    pending: run.pending,
    stepCount: run.stepCount,
    concurrencyKeys: run.concurrencyKeys,
    concurrencyLimits: run.concurrencyLimits,
    parentRunId: null,
    parentStepId: null,
    startedAt: run.startedAt,
    inngestPending: [],
    forceStepPlan: false,
  });
  if (handoffToken && run.stepCount === job.call!.memo.length) s.handoffToken = handoffToken;
  try {
    await applyCallOutcome(c, s, info, outcome);
    const res = await saveExecution(c, s, { job, stepCount: run.stepCount, pending: run.pending });
    if (!res.saved) return undefined;
    for (const h of hooks) h();
    return res.handedOff ? { ...res.handedOff, pending: s.pending } : null;
  } catch (e) {
    ex.log.debug("optimistic save failed; retrying under the lock", { runId: job.runId, err: e });
    return undefined;
  }
}

/** Turns an SDK response into an outcome (protocol §2.4). */
export function classify(
  ex: ExecutorContext,
  status: number,
  headers: Headers,
  text: string,
): CallOutcome {
  if (ex.opts.signingKeys.length && status !== 401) {
    const check = verifySdkSignature(
      headers.get("x-inngest-signature"),
      text,
      ex.opts.signingKeys,
      Date.now(),
    );
    if (!check.ok) {
      return {
        kind: "error",
        error: {
          name: "Error",
          message: `the app's response signature is invalid (${check.reason}); is INNGEST_SIGNING_KEY the same in the app?`,
        },
        retriable: true,
        status,
      };
    }
  }
  const retryAfterMs = parseRetryAfter(headers.get("retry-after"), ex.clock.now(), MAX_WAIT_MS);
  const noRetry = headers.get("x-inngest-no-retry") === "true";
  let json: unknown;
  try {
    json = text.trim() === "" ? null : JSON.parse(text);
  } catch {
    return {
      kind: "error",
      error: {
        name: "Error",
        message: `the app answered HTTP ${status} with a body that is not JSON: ${text.slice(0, 200)}`,
      },
      retriable: !noRetry,
      status,
    };
  }
  if (status === 200) return { kind: "complete", data: json };
  if (status === 206) {
    if (!Array.isArray(json)) {
      return {
        kind: "error",
        error: { name: "Error", message: "the app answered 206 without an op list" },
        retriable: true,
        status,
      };
    }
    return { kind: "ops", ops: json as SdkOp[], retryAfterMs };
  }
  if (status === 401) {
    return {
      kind: "error",
      error: {
        name: "Error",
        message:
          "the app refused the executor's signature (401); the app and the executor must share INNGEST_SIGNING_KEY",
      },
      retriable: true,
      status,
    };
  }
  if (status === 201) {
    return {
      kind: "error",
      error: {
        name: "Error",
        message:
          "streaming responses (INNGEST_STREAMING) are not supported by the embedded executor",
      },
      retriable: false,
      status,
    };
  }
  const error: ErrorObject =
    json && typeof json === "object" && !Array.isArray(json)
      ? normaliseError(json as Record<string, unknown>, status)
      : { name: "Error", message: `the app answered HTTP ${status}` };
  // A checkpoint was refused as stale (409) and the SDK stopped. Usually this call's lease is gone
  // too and its result is dropped; if not, the call is retried rather than failing the run.
  if (error.name === "StaleDispatchError") return { kind: "error", error, retriable: true, status };
  // Anything that is not an SDK answer (a 404 from a proxy, a crashed route) is retried too.
  return { kind: "error", error, retriable: !noRetry, retryAfterMs, status };
}

function normaliseError(obj: Record<string, unknown>, status: number): ErrorObject {
  if (typeof obj.message === "string") return obj as ErrorObject;
  // v4's "Could not find step" answer: { error, requestedStep, foundSteps, … }
  if (typeof obj.error === "string") return { name: "Error", message: obj.error, ...obj };
  return {
    name: "Error",
    message: `the app answered HTTP ${status}: ${JSON.stringify(obj).slice(0, 300)}`,
  };
}

/** `wake` job: a sleep ended; its memo is null. */
export async function runWakeJob(ex: ExecutorContext, job: Job): Promise<void> {
  await inTx(ex, async (c) => {
    const s = await completeJobAndLoadExecution(c, job);
    if (!s || !job.stepId || s.pending[job.stepId]?.op !== "Sleep") return;
    const name = s.pending[job.stepId]?.name ?? null;
    memoize(s, { id: job.stepId, name, op: "Sleep" }, null);
    s.history.push({ type: "sleep.finished", stepId: job.stepId, stepName: name });
    await saveExecution(c, s);
  });
}

async function firstCallInFlight(c: TxCtx, runId: string): Promise<boolean> {
  const rows = await execRows(
    c.tx,
    sql`select 1 from executor_jobs where run_id = ${runId} and kind = 'call' and lease_until > now() limit 1`,
  );
  return rows.length > 0;
}

/** `run_timeout` job: `timeouts.start` / `timeouts.finish` elapsed → the run is cancelled. */
export async function runTimeoutJob(ex: ExecutorContext, job: Job): Promise<void> {
  await inTx(ex, async (c) => {
    const s = await completeJobAndLoadExecution(c, job);
    if (!s) return;
    const type = job.payload.type === "start" ? "start" : "finish";
    // Started = its first call is recorded, or is in flight right now (a leased call job).
    if (type === "start" && (s.row.startedAt || (await firstCallInFlight(c, job.runId)))) return;
    await finishExecution(c, s, { status: "cancelled", reason: `timeouts.${type} elapsed` });
    await saveExecution(c, s);
  });
}
