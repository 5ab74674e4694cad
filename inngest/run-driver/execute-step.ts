import { NonRetriableError, referenceFunction } from "inngest";
import {
  backoffDelayMs,
  buildRunnableGraph,
  getStepState,
  loopOutcome,
  iterationValue,
  type LoopContext,
  type IterationResult,
  type StepOutcome,
  type StepType,
  type TemplateContext,
} from "@/lib/workflow";
import type { OrchestratedStepType } from "@/lib/workflow/step-traits";
import type { AttemptKey } from "@/server/services/run-state/step-records";
import { quotaMessage } from "@/lib/quotas/plans";
import { EVENTS, RUN_WORKFLOW_FUNCTION_ID } from "../events";
import { handlerFor } from "@/server/services/step-execution/actions/registry";
import {
  runActionAttempt,
  type AttemptOutcome,
} from "@/server/services/step-execution/action-attempt";
import { beginDelayBody, endDelayBody } from "@/server/services/step-execution/delay-bodies";
import {
  beginLoopBody,
  endLoopBody,
  type LoopStart,
} from "@/server/services/step-execution/loop-bodies";
import {
  checkChildBody,
  endChildBody,
  startChildBody,
} from "@/server/services/step-execution/subworkflow-bodies";
import {
  beginWaitBody,
  endWaitBody,
  lookbackWaitBody,
} from "@/server/services/step-execution/wait-bodies";
import { runGraph } from "./run-graph";
import { raceWait } from "./race-wait";
import { deadlineReached, HALTED, runApproval, runTask } from "./gates";
import { sid, type DriverEnv, type Scope } from "./types";

type Node = {
  id: string;
  type: string;
  config?: unknown;
  retry?: unknown;
  timeoutMs?: number;
  name?: string;
};

/** Runs one step to its final outcome (retries included). Deterministic between durable steps. */
export async function executeStep(
  env: DriverEnv,
  scope: Scope,
  node: Node,
  ctx: TemplateContext,
  opts?: { counted?: boolean },
): Promise<StepOutcome> {
  const path = scope.prefix + node.id;
  const key = (attempt: number): AttemptKey => ({
    runId: env.plan.runId,
    workspaceId: env.plan.workspaceId,
    stepId: node.id,
    path,
    stepType: node.type,
    attempt,
  });
  if (env.halted) return HALTED;
  if (!opts?.counted && !countAttempt(env, path))
    return { kind: "failed", error: { message: env.abort!.message } };
  const entry = handlerFor(node.type as StepType);
  if (entry.kind === "action") return runAction(env, node, path, key, ctx);
  const type = node.type as OrchestratedStepType;
  switch (type) {
    case "approval":
      return waiting(env, () => runApproval(env, path, node, key(1), ctx));
    case "delay":
      return waiting(env, () => runDelay(env, path, node, key(1), ctx));
    case "wait_for_event":
      return waiting(env, () => runWait(env, path, node, key(1), ctx));
    case "task":
      return waiting(env, () => runTask(env, path, node, key(1), ctx));
    case "loop":
      return runLoop(env, scope, path, node, key(1), ctx);
    case "subworkflow":
      return runSubworkflow(env, path, key(1), ctx, node.config);
    default: {
      // Exhaustive: a new orchestrated type fails the typecheck here until it is driven.
      const unhandled: never = type;
      throw new NonRetriableError(`No orchestration for step type "${String(unhandled)}"`);
    }
  }
}

/** Counts a waiting step while it runs: other steps then keep the run's running/waiting status right. */
async function waiting(env: DriverEnv, fn: () => Promise<StepOutcome>): Promise<StepOutcome> {
  env.waiting++;
  try {
    return await fn();
  } finally {
    env.waiting--;
  }
}

/**
 * constraints.maxSteps (or the plan's lower "steps per run" quota): executed step attempts per
 * run. Exceeding it fails the run with a message naming the limit.
 */
export function countAttempt(env: DriverEnv, path: string): boolean {
  env.attempts++;
  if (env.attempts <= env.maxAttempts) return true;
  if (env.stepsQuota)
    env.abort ??= {
      status: "failed",
      reason: "quota_exceeded",
      message: quotaMessage({
        key: "stepsPerRun",
        limit: env.stepsQuota.limit,
        plan: env.stepsQuota.plan,
        detail: `the run stopped before step "${path}"`,
      }),
    };
  env.abort ??= {
    status: "failed",
    reason: "max_steps",
    message:
      env.plan.limits?.maxSteps === env.maxAttempts
        ? `The run exceeded the maxSteps limit it was started with (limits.maxSteps: ${env.maxAttempts} step attempts) at step "${path}"`
        : `The run exceeded its maxSteps limit (${env.maxAttempts} step attempts) at step "${path}"`,
  };
  return false;
}

async function runAction(
  env: DriverEnv,
  node: Node,
  path: string,
  key: (n: number) => AttemptKey,
  ctx: TemplateContext,
): Promise<StepOutcome> {
  const retry = (node.retry ?? {}) as { maxAttempts?: number; backoffMs?: number | number[] };
  const maxAttempts = Math.max(1, retry.maxAttempts ?? 1);
  for (let attempt = 1; ; attempt++) {
    if (attempt > 1 && !countAttempt(env, path))
      return { kind: "failed", error: { message: env.abort!.message } };
    if (env.halted) return HALTED;
    await env.slots.acquire();
    let outcome: AttemptOutcome;
    try {
      outcome = (await env.step.run(sid(env, `${path}@${attempt}`), () =>
        runActionAttempt({
          key: key(attempt),
          workflowId: env.plan.workflowId,
          rootRunId: env.plan.rootRunId,
          config: node.config ?? {},
          context: ctx,
          timeoutMs: node.timeoutMs,
          deadline: env.deadline,
          refreshStatus: env.waiting > 0,
          ...(env.plan.isTest ? { isTest: true } : {}),
        }),
      )) as AttemptOutcome;
    } finally {
      env.slots.release();
    }
    if (outcome.ok)
      return {
        kind: "completed",
        ...(outcome.port ? { port: outcome.port } : {}),
        output: outcome.output,
      };
    if (!outcome.retryable || attempt >= maxAttempts || env.halted)
      return { kind: "failed", error: outcome.error };
    const delay = Math.max(outcome.retryAfterMs ?? 0, backoffDelayMs(retry as never, attempt + 1));
    await env.step.sleep(sid(env, `${path}@${attempt}~backoff`), Math.max(1_000, delay));
  }
}

async function runDelay(
  env: DriverEnv,
  path: string,
  node: Node,
  key: AttemptKey,
  ctx: TemplateContext,
): Promise<StepOutcome> {
  const begun = await env.step.run(sid(env, `${path}@1~begin`), () =>
    beginDelayBody({ key, config: node.config, context: ctx, deadline: env.deadline }),
  );
  if ("error" in begun) return { kind: "failed", error: begun.error };
  if (env.halted) return HALTED;
  await env.step.sleepUntil(sid(env, `${path}@1~sleep`), new Date(begun.until));
  const ended = await env.step.run(sid(env, `${path}@1~end`), () =>
    endDelayBody({ key, until: begun.until, cappedByDeadline: begun.cappedByDeadline }),
  );
  if (ended.deadlineHit) return deadlineReached(env);
  return { kind: "completed", output: ended.output };
}

async function runWait(
  env: DriverEnv,
  path: string,
  node: Node,
  key: AttemptKey,
  ctx: TemplateContext,
): Promise<StepOutcome> {
  const begun = await env.step.run(sid(env, `${path}@1~begin`), () =>
    beginWaitBody({ key, config: node.config, context: ctx, deadline: env.deadline }),
  );
  if ("error" in begun) return { kind: "failed", error: begun.error };
  if (env.halted) return HALTED;
  // Race the durable wait with a look-back for events sent before the wait was registered.
  const event = await raceWait(
    env,
    path,
    { event: EVENTS.workflowEvent, if: begun.expression, timeout: new Date(begun.until) },
    "lookback",
    () =>
      lookbackWaitBody({
        workspaceId: env.plan.workspaceId,
        event: begun.event,
        match: begun.match,
        since: begun.since,
      }),
  );
  const ended = await env.step.run(sid(env, `${path}@1~end`), () =>
    endWaitBody({ key, event: event ?? null, cappedByDeadline: begun.cappedByDeadline }),
  );
  if (ended.deadlineHit) return deadlineReached(env);
  return { kind: "completed", output: ended.output };
}

/**
 * The run function by reference (this app, by id): importing it would close an import cycle
 * (run-workflow → run-graph → execute-step).
 */
const runWorkflowRef = referenceFunction({ functionId: RUN_WORKFLOW_FUNCTION_ID });

async function runSubworkflow(
  env: DriverEnv,
  path: string,
  key: AttemptKey,
  ctx: TemplateContext,
  config: unknown,
  override?: { workflow: string; version?: string | null; input: unknown },
): Promise<StepOutcome> {
  const started = await env.step.run(sid(env, `${path}@1~start`), () =>
    startChildBody({
      key,
      rootRunId: env.plan.rootRunId,
      config,
      context: ctx,
      ...(override ? { override } : {}),
    }),
  );
  if ("error" in started) return { kind: "failed", error: started.error };
  if (env.halted) return HALTED;
  let result: { ok: true; output: unknown } | { ok: false; message: string };
  if (started.queued) {
    const waited = await awaitQueuedChild(env, path, started);
    if (!waited) return HALTED;
    result = waited;
  } else
    try {
      const output = await env.step.invoke(sid(env, `${path}@1~invoke`), {
        function: runWorkflowRef,
        data: { runId: started.childRunId, workspaceId: env.plan.workspaceId },
        timeout: new Date(env.deadline),
      });
      result = { ok: true, output };
    } catch (e) {
      result = {
        ok: false,
        message: `Workflow "${started.workflowName}" did not complete: ${(e as Error).message}`,
      };
    }
  const ended = await env.step.run(sid(env, `${path}@1~end`), () =>
    endChildBody({ key, childRunId: started.childRunId, result }),
  );
  return ended.ok
    ? { kind: "completed", output: ended.output }
    : { kind: "failed", error: ended.error };
}

/**
 * A child left queued by admission (its workflow's maxConcurrentRuns is full) is started by the
 * admission pass that admits it, not by an invoke: the parent checks on it between durable sleeps
 * (1 s doubling to 30 s) until it ends. Undefined when the run halted meanwhile.
 */
async function awaitQueuedChild(
  env: DriverEnv,
  path: string,
  started: { childRunId: string; workflowName: string },
): Promise<{ ok: true; output: unknown } | { ok: false; message: string } | undefined> {
  for (let n = 0; ; n++) {
    const seen = await env.step.run(sid(env, `${path}@1~child${n}`), () =>
      checkChildBody({ ...started, deadline: env.deadline }),
    );
    if (seen.done) return seen.ok ? { ok: true, output: seen.output } : seen;
    if (env.halted) return undefined;
    await env.step.sleep(sid(env, `${path}@1~queued${n}`), Math.min(30_000, 1_000 * 2 ** n));
  }
}

async function runLoop(
  env: DriverEnv,
  scope: Scope,
  path: string,
  node: Node,
  key: AttemptKey,
  ctx: TemplateContext,
): Promise<StepOutcome> {
  const begun = await env.step.run(sid(env, `${path}@1~begin`), () =>
    beginLoopBody({ key, config: node.config, context: ctx }),
  );
  if ("error" in begun) return { kind: "failed", error: begun.error };
  const outcome = await runLoopIterations(env, scope, path, node, ctx, begun);
  await env.step.run(sid(env, `${path}@1~end`), () =>
    endLoopBody({ key, outcome: outcome as never }),
  );
  return outcome;
}

export type { LoopStart };

/**
 * Runs a loop's iterations and folds them into its outcome. Each body iteration goes through
 * `runGraph` with the same env, so its effects (durable or the dry run's simulated ones) apply.
 */
export async function runLoopIterations(
  env: DriverEnv,
  scope: Scope,
  path: string,
  node: Node,
  ctx: TemplateContext,
  begun: LoopStart,
): Promise<StepOutcome> {
  const config = node.config as { body?: { steps: unknown[]; edges?: unknown[] } };
  const bodyGraph = config.body
    ? buildRunnableGraph({
        steps: config.body.steps as never,
        edges: config.body.edges as never,
        constraints: { maxParallel: env.definition.constraints.maxParallel },
      })
    : null;
  const outer = { ...(scope.outer ?? {}), ...(ctx.steps ?? {}) };
  const results: IterationResult[] = [];
  const running = new Map<number, Promise<IterationResult & { state?: unknown }>>();
  const count = loopIterationCount(begun);
  // With a state, iterations run one at a time (resolveLoopStart), so `state` is always the value
  // the previous iteration left; it is rebuilt on replay from the memoized body outputs.
  let state = begun.state?.initial;
  let next = 0;
  let stop = false;
  while ((next < count && !stop) || running.size > 0) {
    while (!stop && next < count && running.size < begun.concurrency) {
      const index = next++;
      const loop = iterationLoopContext(begun, index, state);
      const iterScope: Scope = { prefix: `${path}[${index}].`, loop, outer };
      running.set(index, runIteration(env, iterScope, bodyGraph, begun, loop));
    }
    const done = await Promise.race(running.values());
    running.delete(done.index);
    if ("state" in done) state = done.state;
    results.push(done);
    // A failed or cancelled iteration stops new ones (running ones finish).
    if (done.verdict.status !== "completed") stop = true;
    if (env.halted) stop = true;
  }
  return loopOutcome(results, {
    items: begun.items.length,
    ...(begun.batchSize ? { batchSize: begun.batchSize, batches: count } : {}),
    ...(begun.state ? { state: state ?? null } : {}),
  });
}

/** Iterations a loop runs: one per item, or one per batch of `batchSize` items. */
export function loopIterationCount(begun: Pick<LoopStart, "items" | "batchSize">): number {
  return begun.batchSize ? Math.ceil(begun.items.length / begun.batchSize) : begun.items.length;
}

/** What iteration `index` sees under `loop.` (the list itself shared, never copied). */
function iterationLoopContext(begun: LoopStart, index: number, state: unknown): LoopContext {
  const base: LoopContext = begun.batchSize
    ? {
        index,
        batch: begun.items.slice(index * begun.batchSize, (index + 1) * begun.batchSize),
      }
    : { index, item: begun.items[index] };
  base.items = begun.items;
  if (begun.state) {
    base.hasState = true;
    base.state = state ?? null;
  }
  return base;
}

async function runIteration(
  env: DriverEnv,
  scope: Scope,
  bodyGraph: ReturnType<typeof buildRunnableGraph> | null,
  begun: LoopStart,
  loop: LoopContext,
): Promise<IterationResult & { state?: unknown }> {
  const { index } = loop;
  if (!bodyGraph) {
    // A workflow loop: each item (or batch) runs the workflow as a child run.
    const path = scope.prefix.slice(0, -1);
    const input =
      begun.input ?? (loop.batch ? { batch: loop.batch, index } : { item: loop.item, index });
    const outcome = await runSubworkflow(
      env,
      path,
      {
        runId: env.plan.runId,
        workspaceId: env.plan.workspaceId,
        stepId: path,
        path,
        stepType: "subworkflow",
        attempt: 1,
      },
      { ...env.base, loop },
      null,
      { workflow: begun.workflow!, version: begun.version, input },
    );
    const status =
      outcome.kind === "completed"
        ? "completed"
        : outcome.kind === "failed"
          ? "failed"
          : "cancelled";
    return {
      index,
      verdict: {
        status,
        reason: status === "completed" ? "all_steps_finished" : "unhandled_failure",
        unhandledFailures: [],
        returned: false,
      },
      value:
        outcome.kind === "completed"
          ? ((outcome.output as { data?: unknown })?.data ?? null)
          : null,
    };
  }
  const r = await runGraph(env, bodyGraph as never, scope);
  const result = {
    index,
    verdict: r.verdict,
    value: iterationValue(bodyGraph, r.state, r.verdict),
  };
  if (!begun.state) return result;
  // The stateFrom step's output data is the next state; skipped or failed, the state carries over.
  const from = getStepState(r.state, begun.state.from);
  return from.status === "completed"
    ? { ...result, state: (from.output as { data?: unknown } | null)?.data ?? null }
    : result;
}
