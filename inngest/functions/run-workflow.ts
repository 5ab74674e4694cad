import { NonRetriableError } from "inngest";
import { tighterCap } from "@/lib/quotas/plans";
import { buildRunnableGraph, WorkflowDefinition, type StepOutcome } from "@/lib/workflow";
import { tightenConstraints, type RunLimits } from "@/lib/workflow/run-limits";
import { inngest } from "../client";
import { EVENTS, RUN_WORKFLOW_FUNCTION_ID, RunStartData } from "../events";
import { finishRunBody, loadPlanBody } from "@/server/services/step-execution/finish-bodies";
import { firstWaveBody, runGraph } from "../run-driver/run-graph";
import { Semaphore } from "../run-driver/semaphore";
import { sid, type DriverEnv, type StepTools } from "../run-driver/types";
import type { WaveMemo } from "../run-driver/waves";
import { stepEffects } from "./step-effects";
import type { RunPlan } from "@/server/services/run-state/run-plan";
import { failRunBody } from "@/server/services/step-execution/fail-bodies";
import { pinRepositoryBody } from "@/server/services/step-execution/repository-bodies";

/**
 * Executes one workflow run from its pinned snapshot. Thin and deterministic: the plan is loaded
 * in a durable step, the graph is driven by the pure state machine, every side effect happens in
 * a durable step with a stable id (`<path>@<attempt>`), waits are `waitForEvent`/`sleep`, and
 * children are `invoke`s. Steps that run alongside others are tagged race-mode (see `sid`) so the
 * executor resumes after each completion and independent branches advance independently.
 */
export const runWorkflow = inngest.createFunction(
  {
    id: RUN_WORKFLOW_FUNCTION_ID,
    name: "Run workflow",
    // Step failures are handled by the engine (retry policy per step); these retries only cover
    // infrastructure errors (the database unreachable, a crash mid-request).
    retries: 3,
    triggers: [{ event: EVENTS.runStart }],
    cancelOn: [{ event: EVENTS.runCancel, if: "async.data.runId == event.data.runId" }],
    onFailure: async ({ event, error }) => {
      const runId = (event.data as { event?: { data?: { runId?: string } } }).event?.data?.runId;
      if (runId) await failRunBody({ runId, message: error.message });
    },
  },
  async ({ event, step, runId: executionId }) => {
    const { runId } = RunStartData.parse(event.data);
    const loaded = await step.run("plan", async () => {
      const loaded = await loadPlanBody(runId, executionId);
      // Engine version 2 folds the first wave into this step (unless a repository must be pinned
      // first): a run that starts with pure steps records them with its plan.
      if (!loaded.ok || (loaded.plan.engineVersion ?? 1) < 2 || needsPin(loaded.plan))
        return loaded;
      const { env, graph, seed } = engine(step, loaded.plan);
      const firstWave = await firstWaveBody(env, graph, seed);
      return firstWave ? { ...loaded, firstWave } : loaded;
    });
    if (!loaded.ok) return { skipped: loaded.reason };
    const plan = loaded.plan;
    if (needsPin(plan)) {
      const pinned = await step.run("repository", () => pinRepositoryBody(runId));
      if (!pinned.ok) {
        // The run already ended failed; a parent's invoke must fail with it.
        if (plan.parentRunId) throw new NonRetriableError(pinned.message);
        return { failed: pinned.message };
      }
    }
    const { env, graph, seed, definition } = engine(step, plan);
    const firstWave = "firstWave" in loaded ? (loaded.firstWave as WaveMemo) : undefined;
    const result = await runGraph(env, graph, { prefix: "" }, seed, { topLevel: true, firstWave });
    env.halted = true;
    const finished =
      result.ended ??
      (await step.run(sid(env, "finish"), () =>
        finishRunBody({
          runId,
          verdict: result.verdict,
          state: result.state,
          base: env.base,
          outputTemplate: definition.output,
          abort: env.abort,
          leftInFlight: result.leftInFlight + env.danglingWaits,
        }),
      ));
    // A child's failure must fail its parent's invoke.
    if (plan.parentRunId && finished.status !== "completed") {
      throw new NonRetriableError(
        String(
          (finished.error as { message?: string } | null)?.message ??
            `Child run ${finished.status}`,
        ),
      );
    }
    return finished.output;
  },
);

function needsPin(plan: RunPlan): boolean {
  return !!plan.repository && !plan.repository.sha;
}

/** The run-wide engine state for a plan (rebuilt identically on every replay), its graph and seed. */
function engine(step: StepTools, plan: RunPlan) {
  const { definition, graph } = compiled(plan.hash, plan.definition, plan.limits);
  const env: DriverEnv = {
    step,
    plan,
    definition,
    base: {
      input: plan.input,
      vars: definition.variables,
      run: { id: plan.runId, workflowId: plan.workflowId ?? undefined },
      trigger: plan.trigger,
    },
    slots: new Semaphore(definition.constraints.maxParallel),
    attempts: 0,
    maxAttempts: tighterCap(definition.constraints.maxSteps, plan.stepsQuota?.limit)!,
    ...(plan.stepsQuota && plan.stepsQuota.limit < definition.constraints.maxSteps
      ? { stepsQuota: plan.stepsQuota }
      : {}),
    deadline: Date.parse(plan.deadlineAt),
    halted: false,
    danglingWaits: 0,
    active: 0,
    waiting: 0,
    stepEffects,
  };
  const seed = plan.seed
    ? (Object.fromEntries(
        Object.entries(plan.seed).map(([id, s]) => [id, seedOutcome(s)]),
      ) as Record<string, StepOutcome>)
    : undefined;
  return { env, graph, seed, definition };
}

/**
 * Every durable request replays the function from the top, so the pinned definition would be
 * parsed and its graph built once per step. Both are pure functions of the content hash and the
 * run's limits (which tighten the constraints every reader — slots, maxSteps, the graph's
 * maxParallel, loop bodies — takes from the definition): cache them by both.
 */
const cache = new Map<
  string,
  { definition: WorkflowDefinition; graph: ReturnType<typeof buildRunnableGraph> }
>();
function compiled(hash: string, raw: unknown, limits: RunLimits | null | undefined) {
  const key = limits ? `${hash} ${JSON.stringify(limits)}` : hash;
  let hit = cache.get(key);
  if (!hit) {
    const parsed = WorkflowDefinition.parse(raw);
    const definition = { ...parsed, constraints: tightenConstraints(parsed.constraints, limits) };
    hit = { definition, graph: buildRunnableGraph(definition) };
    if (cache.size >= 200) cache.delete(cache.keys().next().value!);
    cache.set(key, hit);
  }
  return hit;
}

function seedOutcome(s: {
  status: string;
  port?: string;
  output?: unknown;
  error?: unknown;
}): StepOutcome {
  if (s.status === "completed")
    return { kind: "completed", ...(s.port ? { port: s.port } : {}), output: s.output };
  if (s.status === "failed") return { kind: "failed", error: s.error };
  return { kind: "skipped", reason: "branch_not_taken" };
}
