/**
 * Applies one SDK call's outcome to its run, inside the result transaction (protocol §2.4–§2.9):
 *
 *   200            → run completed with the returned value
 *   206 [ops]      → StepRun / StepFailed memoise; StepError retries the step with backoff (or
 *                    fails it on the last attempt); StepPlanned queues a targeted call; Sleep,
 *                    WaitForEvent and InvokeFunction create a timer, a pause or a child run
 *   500 / network  → the call is retried with backoff until attempts run out, then the run fails
 *   400 no-retry   → the run fails (NonRetriableError, an uncaught step error, the last attempt)
 *
 * Ops the executor does not implement fail the run with an error naming the step and the op. The
 * outcome's types and the records shared with checkpoint.ts (start, step run, failure) are in
 * call-results.ts.
 */
import { createHash } from "node:crypto";
import {
  callFailed,
  failExecution,
  markExecutionStarted,
  recordStepRun,
  type CallInfo,
  type CallOutcome,
  type ErrorObject,
  type SdkOp,
} from "./call-results";
import type { TxCtx } from "./context";
import { resolveUntil } from "./durations";
import { INVOKED_EVENT, type EventPayload } from "./events";
import { createExecution, finishExecution } from "./lifecycle";
import { createPause } from "./pauses";
import {
  callConcurrency,
  discoverLater,
  knownJobKeys,
  later,
  memoize,
  memoOutputsAmong,
  stepCount,
  type ExecutionState,
} from "./execution-state";
import { ulid } from "../../lib/ids";

const UNSUPPORTED_OPS: Record<string, string> = {
  WaitForSignal: "step.waitForSignal()",
  AIGateway: "step.ai.infer()",
  Gateway: "step.fetch()",
  DeferAdd: "defer()",
  DeferAbort: "defer()",
};

/** Ops that start asynchronous work; a repeated report of one that is pending or done is dropped. */
const PLANNING_OPS = new Set(["StepPlanned", "Sleep", "WaitForEvent", "InvokeFunction"]);

/** Inngest's `hasPlanOp`: ops the server resumes later (parallelism "inngest"). */
const PLAN_OPS = new Set([...PLANNING_OPS, "WaitForSignal", "AIGateway", "Gateway"]);
/** Inngest's lazy ops: piggybacked on another op, never counted as a parallel step. */
const LAZY_OPS = new Set(["DeferAdd", "DeferAbort"]);

/** Inngest's `computeParallelCoalesceKey`: stable for the run and the batch's sorted step ids. */
function coalesceKey(runId: string, stepIds: string[]): string {
  const h = createHash("sha1").update(runId);
  for (const id of [...stepIds].sort()) h.update("\0").update(id);
  return h.digest("hex").slice(0, 16);
}

/**
 * Parallelism "inngest", before the ops are applied (Inngest's `HandleGeneratorResponse`): more
 * than one non-lazy op sets ForceStepPlan; with a plan op among them the pending set becomes
 * exactly their ids (`SavePending` = DEL + SADD, finished or in-flight ids included) and the batch
 * gets a coalesce key. Returns that key.
 */
function savePendingLikeInngest(s: ExecutionState, ops: SdkOp[]): string | undefined {
  const nonLazy = ops.filter((o) => !LAZY_OPS.has(o.op)).map((o) => o.id);
  if (nonLazy.length <= 1) return undefined;
  s.forceStepPlan = true;
  if (!ops.some((o) => PLAN_OPS.has(o.op))) return undefined;
  s.pendingSet = new Set(nonLazy);
  return coalesceKey(s.row.id, nonLazy);
}

const planKey = (stepId: string) => `plan:${stepId}`;
export async function applyCallOutcome(
  c: TxCtx,
  s: ExecutionState,
  call: CallInfo,
  outcome: CallOutcome,
): Promise<void> {
  const { job, fn } = call;
  markExecutionStarted(c, s, fn, call.startedAt);
  const timing = { startedAt: call.startedAt, durationMs: call.durationMs, attempt: job.attempt };

  if (outcome.kind === "complete") {
    await finishExecution(c, s, { status: "completed", output: outcome.data });
    return;
  }
  if (outcome.kind === "error") {
    await callFailed(c, s, call, outcome.error, outcome.retriable, outcome.retryAfterMs);
    return;
  }

  const inngest = s.parallelism === "inngest";
  const ids = inngest
    ? outcome.ops.map((o) => o.id)
    : outcome.ops.filter((o) => PLANNING_OPS.has(o.op)).map((o) => o.id);
  const outputs = await memoOutputsAmong(c, s.row.id, ids);
  const done = new Set(
    outcome.ops.filter((o) => PLANNING_OPS.has(o.op) && outputs.has(o.id)).map((o) => o.id),
  );
  // Parallelism "inngest": pending set and ForceStepPlan as Inngest updates them; a planned step
  // is a job whose id (`plan:<step>`) is remembered, so planning it again is a no-op.
  const ck = inngest ? savePendingLikeInngest(s, outcome.ops) : undefined;
  const plannedBefore = inngest
    ? await knownJobKeys(
        c,
        s.row.id,
        outcome.ops.filter((o) => o.op === "StepPlanned").map((o) => planKey(o.id)),
      )
    : new Set<string>();
  if (inngest) s.memoOutputs = outputs;
  // The coalesce key of the job that made this call (a planned step of a multi-step batch).
  const via = { ck: typeof job.payload.ck === "string" ? job.payload.ck : undefined };
  let progressed = false;

  for (const op of outcome.ops) {
    if (s.finished) break;
    const name = op.displayName ?? op.name ?? op.id;
    const race = op.opts?.parallelMode === "race";
    if (inngest && op.op === "StepPlanned") {
      if (plannedBefore.has(planKey(op.id))) continue;
    } else if (PLANNING_OPS.has(op.op) && (s.pending[op.id] || done.has(op.id))) continue;

    switch (op.op) {
      case "StepRun": {
        recordStepRun(s, op, timing, { ...via, race });
        progressed = true;
        break;
      }
      case "StepError": {
        const attempt = job.stepId === op.id || job.stepId === null ? job.attempt : 0;
        const error = op.error ?? { name: "Error", message: "step failed" };
        if (attempt + 1 < fn.maxAttempts) {
          const delay = outcome.retryAfterMs ?? c.ex.opts.backoff(attempt + 1);
          s.pending[op.id] = { op: "StepPlanned", name, ...(race ? { race } : {}) };
          later(s, {
            kind: "call",
            stepId: op.id,
            attempt: attempt + 1,
            runAt: c.now + delay,
            concurrency: callConcurrency(s),
          });
          s.history.push({
            type: "step.errored",
            stepId: op.id,
            stepName: name,
            error,
            data: { retryInMs: delay },
            ...timing,
          });
        } else {
          memoize(s, { id: op.id, name, op: "StepFailed" }, { error }, { ...via, race });
          s.history.push({ type: "step.failed", stepId: op.id, stepName: name, error, ...timing });
        }
        progressed = true;
        break;
      }
      case "StepFailed": {
        const error = op.error ??
          (op.data as ErrorObject) ?? { name: "Error", message: "step failed" };
        memoize(s, { id: op.id, name, op: op.op }, { error }, { ...via, race });
        s.history.push({ type: "step.failed", stepId: op.id, stepName: name, error, ...timing });
        progressed = true;
        break;
      }
      case "StepPlanned": {
        s.pending[op.id] ??= { op: op.op, name, ...(race ? { race } : {}), ...(ck ? { ck } : {}) };
        later(s, {
          kind: "call",
          stepId: op.id,
          concurrency: callConcurrency(s),
          ...(inngest ? { key: planKey(op.id), once: true, payload: ck ? { ck } : {} } : {}),
        });
        s.history.push({ type: "step.planned", stepId: op.id, stepName: name });
        progressed = true;
        break;
      }
      case "Sleep": {
        const until = resolveUntil(op.name ?? "", c.now);
        if (until === undefined) {
          await failExecution(
            c,
            s,
            `step "${name}": the sleep duration ${JSON.stringify(op.name)} is not a duration or ISO date`,
          );
          break;
        }
        s.pending[op.id] = { op: op.op, name, ...(race ? { race } : {}), ...(ck ? { ck } : {}) };
        later(s, { kind: "wake", stepId: op.id, runAt: until, payload: { name } });
        s.history.push({
          type: "sleep.scheduled",
          stepId: op.id,
          stepName: name,
          data: { until: new Date(until).toISOString() },
        });
        progressed = true;
        break;
      }
      case "WaitForEvent": {
        const timeout = String(op.opts?.timeout ?? "");
        const until = resolveUntil(timeout, c.now);
        if (!op.name || until === undefined) {
          await failExecution(
            c,
            s,
            `step "${name}": waitForEvent needs an event name and a timeout (got ${JSON.stringify(op.opts)})`,
          );
          break;
        }
        const expression = typeof op.opts?.if === "string" ? op.opts.if : undefined;
        await createPause(c, s, {
          kind: "wait",
          stepId: op.id,
          stepName: name,
          eventName: op.name,
          expression,
          expiresAt: until,
        });
        if (race) s.pending[op.id]!.race = true;
        if (ck) s.pending[op.id]!.ck = ck;
        s.history.push({
          type: "wait.started",
          stepId: op.id,
          stepName: name,
          data: { event: op.name, if: expression ?? null, until: new Date(until).toISOString() },
        });
        progressed = true;
        break;
      }
      case "InvokeFunction": {
        await invoke(c, s, op, name, race);
        if (ck && s.pending[op.id]) s.pending[op.id]!.ck = ck;
        progressed = true;
        break;
      }
      case "RunComplete": {
        // Checkpoint mode's "function returned": `data` is the return value itself, not wrapped
        // (a function returning `{ data: 1 }` sends `data: { data: 1 }`; README "Checkpointing").
        await finishExecution(c, s, { status: "completed", output: op.data ?? null });
        break;
      }
      case "DiscoveryRequest": {
        // Sent when a checkpointing request hits its maxRuntime (sync mode in 4.24; kept for
        // SDKs that send it in async mode too): continue in a new request.
        discoverLater(
          s,
          undefined,
          0,
          inngest ? { key: `request:${job.id}`, once: true } : undefined,
        );
        progressed = true;
        break;
      }
      default: {
        const what = UNSUPPORTED_OPS[op.op]
          ? `${UNSUPPORTED_OPS[op.op]} (op ${op.op})`
          : `the op "${op.op}"`;
        await failExecution(
          c,
          s,
          `step "${name}" uses ${what}, which the embedded executor does not support; run this function on Inngest (SLUICE_EXECUTOR=inngest)`,
        );
      }
    }
  }

  if (!s.finished && stepCount(s) > c.ex.opts.maxStepsPerRun) {
    await failExecution(c, s, `the run exceeded the limit of ${c.ex.opts.maxStepsPerRun} steps`);
  }
  if (s.finished) return;
  if (inngest) {
    // Inngest acts on what it was told and nothing else: a response whose ops were all no-ops
    // (re-reported steps) schedules nothing, and a run left with nothing scheduled hangs there.
    // Only an empty op list restarts discovery (`restartDiscovery`).
    if (!outcome.ops.length)
      discoverLater(s, undefined, 0, { key: `redrive:${job.id}.${job.attempt}`, once: true });
    return;
  }
  if (done.size > 0) {
    // The SDK is still waiting for steps that have settled: it answered from a memo without their
    // results (they settled while this call was in flight, and their own discovery was dropped as
    // a duplicate of this one — one discovery per run). Not a failure (protocol §2.8): discover
    // again; the next request carries the whole memo, so the SDK cannot re-report them again.
    discoverLater(s);
    return;
  }
  if (!progressed && Object.keys(s.pending).length === 0) {
    // Nothing pending, nothing new, nothing stale: the function made no progress.
    await callFailed(
      c,
      s,
      call,
      { name: "Error", message: "the SDK reported no new steps and nothing is pending" },
      true,
    );
  }
}

async function invoke(
  c: TxCtx,
  s: ExecutionState,
  op: SdkOp,
  name: string,
  race: boolean,
): Promise<void> {
  const targetId = String(op.opts?.function_id ?? "");
  const payload = (op.opts?.payload ?? {}) as {
    data?: Record<string, unknown>;
    user?: Record<string, unknown>;
    v?: string;
  };
  const target = c.ex.registry.get(targetId);
  if (!target || target.status !== "active") {
    const why = target
      ? `is ${target.status}${target.errors.length ? `: ${target.errors.join("; ")}` : ""}`
      : "is not registered with the executor";
    const error = { name: "Error", message: `could not invoke function "${targetId}": it ${why}` };
    memoize(s, { id: op.id, name, op: op.op }, { error });
    s.history.push({ type: "invoke.failed", stepId: op.id, stepName: name, error });
    return;
  }
  const correlationId = `${s.row.id}.${op.id}`;
  const eventId = ulid(c.now);
  const event: EventPayload = {
    name: INVOKED_EVENT,
    data: {
      ...(payload.data ?? {}),
      _inngest: { fn_id: targetId, correlation_id: correlationId, source_run_id: s.row.id },
    },
    id: eventId,
    ts: c.now,
    ...(payload.user ? { user: payload.user } : {}),
    ...(payload.v ? { v: payload.v } : {}),
  };
  const created = await createExecution(c, {
    fn: target,
    event,
    parent: { runId: s.row.id, stepId: op.id },
  });
  if (!("runId" in created)) {
    const error = {
      name: "Error",
      message: `invoked function "${targetId}" did not start (${created.skipped})`,
    };
    memoize(s, { id: op.id, name, op: op.op }, { error });
    s.history.push({ type: "invoke.failed", stepId: op.id, stepName: name, error });
    return;
  }
  const timeout = typeof op.opts?.timeout === "string" ? op.opts.timeout : undefined;
  const until = timeout ? resolveUntil(timeout, c.now) : undefined;
  await createPause(c, s, {
    kind: "invoke",
    stepId: op.id,
    stepName: name,
    childRunId: created.runId,
    expiresAt: until,
  });
  if (race) s.pending[op.id]!.race = true;
  s.history.push({
    type: "invoke.started",
    stepId: op.id,
    stepName: name,
    data: { childRunId: created.runId, functionId: targetId },
  });
}
