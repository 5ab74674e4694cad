import { NonRetriableError, referenceFunction } from "inngest";
import {
  backoffDelayMs,
  type StepOutcome,
  type StepType,
  type TemplateContext,
} from "@/lib/workflow";
import type { OrchestratedStepType } from "@/lib/workflow/step-traits";
import type { AttemptKey } from "@/server/services/run-state/step-records";
import { quotaMessage } from "@/lib/quotas/plans";
import { EVENTS, RUN_WORKFLOW_FUNCTION_ID } from "../events";
import type { AttemptOutcome } from "@/server/services/step-execution/action-attempt";
import { runLoopIterations } from "./loop-iterations";
import { raceWait } from "./race-wait";
import { deadlineReached, HALTED, runApproval, runTask } from "./gates";
import { sid, type DriverEnv, type Scope } from "./types";

export type Node = {
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
  const entry = env.stepEffects.actions.handlerFor(node.type as StepType);
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
        env.stepEffects.actions.runActionAttempt({
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
    env.stepEffects.bodies.beginDelayBody({
      key,
      config: node.config,
      context: ctx,
      deadline: env.deadline,
    }),
  );
  if ("error" in begun) return { kind: "failed", error: begun.error };
  if (env.halted) return HALTED;
  await env.step.sleepUntil(sid(env, `${path}@1~sleep`), new Date(begun.until));
  const ended = await env.step.run(sid(env, `${path}@1~end`), () =>
    env.stepEffects.bodies.endDelayBody({
      key,
      until: begun.until,
      cappedByDeadline: begun.cappedByDeadline,
    }),
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
    env.stepEffects.bodies.beginWaitBody({
      key,
      config: node.config,
      context: ctx,
      deadline: env.deadline,
    }),
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
      env.stepEffects.bodies.lookbackWaitBody({
        workspaceId: env.plan.workspaceId,
        event: begun.event,
        match: begun.match,
        since: begun.since,
      }),
  );
  const ended = await env.step.run(sid(env, `${path}@1~end`), () =>
    env.stepEffects.bodies.endWaitBody({
      key,
      event: event ?? null,
      cappedByDeadline: begun.cappedByDeadline,
    }),
  );
  if (ended.deadlineHit) return deadlineReached(env);
  return { kind: "completed", output: ended.output };
}

/**
 * The run function by reference (this app, by id): importing it would close an import cycle
 * (run-workflow → run-graph → execute-step).
 */
const runWorkflowRef = referenceFunction({ functionId: RUN_WORKFLOW_FUNCTION_ID });

export async function runSubworkflow(
  env: DriverEnv,
  path: string,
  key: AttemptKey,
  ctx: TemplateContext,
  config: unknown,
  override?: { workflow: string; version?: string | null; input: unknown },
): Promise<StepOutcome> {
  const started = await env.step.run(sid(env, `${path}@1~start`), () =>
    env.stepEffects.bodies.startChildBody({
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
    env.stepEffects.bodies.endChildBody({ key, childRunId: started.childRunId, result }),
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
      env.stepEffects.bodies.checkChildBody({ ...started, deadline: env.deadline }),
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
    env.stepEffects.bodies.beginLoopBody({ key, config: node.config, context: ctx }),
  );
  if ("error" in begun) return { kind: "failed", error: begun.error };
  const outcome = await runLoopIterations(env, scope, path, node, ctx, begun);
  await env.step.run(sid(env, `${path}@1~end`), () =>
    env.stepEffects.bodies.endLoopBody({ key, outcome: outcome as never }),
  );
  return outcome;
}
