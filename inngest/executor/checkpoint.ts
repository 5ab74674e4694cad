/**
 * Checkpointing (README "Checkpointing"): the SDK runs consecutive steps inside one discovery
 * request and POSTs each result to `/v1/checkpoint/:runId/async` before moving on, instead of
 * answering the executor after every step. The request itself ends later with the op that needs
 * the executor (a sleep, parallel steps, `RunComplete`, an error).
 *
 *   executor ──POST ?stepId=step, ctx.fn_id + ctx.qi_id──► SDK
 *        ◄── POST /v1/checkpoint/:runId/async {steps:[StepRun]} ── (one per step) ── 200 | 409
 *        ◄── 206 [Sleep] / [RunComplete {data}] / … ── the call job's usual result transaction
 *
 * A checkpoint is fenced by the call job it belongs to (`qi_id` = job id + lease token): if that
 * job is gone (run finished or cancelled) or was re-claimed, the answer is 409 and nothing is
 * written, and the SDK stops the request (StaleDispatchError) instead of running more steps.
 */
import { sql } from "drizzle-orm";
import { execRows } from "../../db/client";
import { inTx, type ExecutorContext } from "./context";
import { failExecution, markExecutionStarted, recordStepRun, type SdkOp } from "./call-results";
import type { Job } from "./queue";
import { loadExecution, memoizedAmong, stepCount } from "./execution-state";
import { saveExecution } from "./execution-save";

/** `ctx.qi_id` of a call: names the job and the lease its request runs under. */
export function queueItemRef(job: Pick<Job, "id" | "leaseToken">): string {
  return `${job.id}.${job.leaseToken}`;
}

function parseQueueItemRef(ref: string): { jobId: number; token: string } | undefined {
  const m = ref.match(/^(\d{1,18})\.([A-Za-z0-9_-]{1,64})$/);
  return m ? { jobId: Number(m[1]), token: m[2]! } : undefined;
}

export interface CheckpointRequest {
  runId: string;
  fnId: string;
  qiId: string;
  requestStartedAt?: number;
  steps: SdkOp[];
}

/** 200: saved (`saved` = steps new to the memo); 409: stale, nothing written; 400: unusable body. */
export type CheckpointResult =
  { status: 200; saved: number } | { status: 400 | 409; error: string };

/**
 * Reads a checkpoint body (`{run_id, fn_id, qi_id, request_started_at, steps, ts}`). Only
 * `StepRun` ops are taken: anything else is refused with 400, so the SDK gives up on the
 * checkpoint and returns the ops in its 206, where the executor applies (or refuses) them.
 */
export function parseCheckpoint(runId: string, body: unknown): CheckpointRequest | string {
  if (!body || typeof body !== "object" || Array.isArray(body)) return "expected a JSON object";
  const b = body as Record<string, unknown>;
  if (typeof b.run_id === "string" && b.run_id !== runId)
    return `run_id "${b.run_id}" does not match the URL's run "${runId}"`;
  if (typeof b.fn_id !== "string" || !b.fn_id) return "fn_id is missing";
  if (typeof b.qi_id !== "string" || !b.qi_id) return "qi_id is missing";
  if (!Array.isArray(b.steps) || b.steps.length === 0) return "steps must be a non-empty array";
  const steps: SdkOp[] = [];
  for (const [i, raw] of b.steps.entries()) {
    const op = raw as Partial<SdkOp> | null;
    if (!op || typeof op !== "object" || typeof op.id !== "string" || !op.id)
      return `steps[${i}] has no id`;
    if (op.op !== "StepRun")
      return `steps[${i}] ("${op.displayName ?? op.name ?? op.id}") is a ${String(op.op)} op; only StepRun is checkpointed here`;
    steps.push({
      id: op.id,
      op: op.op,
      name: op.name,
      displayName: op.displayName,
      data: op.data,
      timing: op.timing,
    });
  }
  const started = Number(b.request_started_at);
  return {
    runId,
    fnId: b.fn_id,
    qiId: b.qi_id,
    ...(Number.isFinite(started) && started > 0 ? { requestStartedAt: started } : {}),
    steps,
  };
}

/**
 * Appends the checkpointed steps to the run's memo in arrival order, in one transaction holding
 * the run lock (then the job's: the run → jobs order of execution-state.ts). A repeated POST (the SDK
 * retries on network errors) adds nothing twice. The job's lease is renewed: the request is alive.
 */
export async function saveCheckpoint(
  ex: ExecutorContext,
  req: CheckpointRequest,
): Promise<CheckpointResult> {
  const ref = parseQueueItemRef(req.qiId);
  if (!ref) return { status: 409, error: `qi_id "${req.qiId}" names no request of this executor` };
  return inTx(ex, async (c) => {
    const s = await loadExecution(c, req.runId);
    if (!s)
      return {
        status: 409,
        error: `run ${req.runId} is not active (finished, cancelled or unknown)`,
      };
    if (s.row.functionId !== req.fnId)
      return {
        status: 409,
        error: `run ${req.runId} belongs to "${s.row.functionId}", not "${req.fnId}"`,
      };
    // A lease released at start-up (lease_until null) counts as lost: that request died with its process.
    const fenced = await execRows<{ attempt: number }>(
      c.tx,
      sql`update executor_jobs set lease_until = now() + make_interval(secs => ${ex.opts.leaseMs / 1000})
          where id = ${ref.jobId} and run_id = ${req.runId} and kind = 'call' and step_id is null
            and lease_token = ${ref.token} and lease_until is not null
          returning attempt`,
    );
    if (!fenced.length)
      return { status: 409, error: `the request holding job ${ref.jobId} is no longer current` };
    const fn = ex.registry.get(s.row.functionId);
    if (fn) markExecutionStarted(c, s, fn, new Date(req.requestStartedAt ?? c.now));

    const known = await memoizedAmong(
      c,
      req.runId,
      req.steps.map((o) => o.id),
    );
    const attempt = Number(fenced[0]!.attempt);
    let saved = 0;
    for (const op of req.steps) {
      if (known.has(op.id)) continue;
      const a = Number(op.timing?.a);
      const b = Number(op.timing?.b);
      recordStepRun(s, op, {
        attempt,
        startedAt: Number.isFinite(a) && a > 0 ? new Date(a / 1e6) : null,
        durationMs: Number.isFinite(b) && b >= 0 ? Math.round(b / 1e6) : null,
      });
      saved++;
    }
    // The request that checkpointed is still running: its own answer queues whatever comes next.
    s.settled = false;
    s.settledSteps = [];
    if (stepCount(s) > ex.opts.maxStepsPerRun) {
      await failExecution(c, s, `the run exceeded the limit of ${ex.opts.maxStepsPerRun} steps`);
      await saveExecution(c, s);
      return { status: 409, error: `run ${req.runId} exceeded its step limit and failed` };
    }
    await saveExecution(c, s);
    return { status: 200, saved };
  });
}
