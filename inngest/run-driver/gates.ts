import type { StepOptionsOrId } from "inngest";
import type { StepOutcome, TemplateContext } from "@/lib/workflow";
import type { AttemptKey } from "@/server/services/run-state/step-records";
import { EVENTS } from "../events";
import { raceWait } from "./race-wait";
import { sid, type DriverEnv } from "./types";

/** What a step that was about to start returns once the run has already ended. */
export const HALTED: StepOutcome = { kind: "cancelled", reason: "run_ended" };

/** The run reached its deadline while the step waited: the run times out, the step is cancelled. */
export function deadlineReached(env: DriverEnv): StepOutcome {
  env.abort ??= {
    status: "timed_out",
    reason: "deadline",
    message: "The run reached its deadline",
  };
  return { kind: "cancelled", reason: "deadline" };
}

type StepError = Extract<StepOutcome, { kind: "failed" }>["error"];

/**
 * A step that waits on a record a person or agent settles (an approval, a task): open the record
 * in a durable step, wait durably (holding the run's admission slot as `waiting`) for the event
 * that settles it — racing a check for an outcome recorded before the wait was registered — or
 * for its expiry, then close the step from the record. Step ids stay `<path>@1~open`, `~wait`,
 * `~check`, `~close`, so recorded runs replay unchanged.
 */
type Opened<R> = Exclude<R, { error: unknown }>;

async function runGate<R, C extends { deadlineHit: boolean }>(
  env: DriverEnv,
  path: string,
  gate: {
    /** `{ error }` when the step's config is unusable (a user failure recorded on the step). */
    open: (stepId: StepOptionsOrId) => Promise<R>;
    /** The settling event and its CEL match on the opened record. */
    settledBy: (opened: Opened<R>) => { event: string; if: string };
    check: (opened: Opened<R>) => Promise<unknown>;
    close: (stepId: StepOptionsOrId, opened: Opened<R>) => Promise<C>;
    outcome: (closed: C) => StepOutcome;
  },
): Promise<StepOutcome> {
  const result = await gate.open(sid(env, `${path}@1~open`));
  if (result && typeof result === "object" && "error" in result)
    return { kind: "failed", error: result.error as StepError };
  const opened = result as Opened<R>;
  const expiresAt = (opened as { expiresAt: string }).expiresAt;
  if (env.halted) return HALTED;
  await raceWait(
    env,
    path,
    { ...gate.settledBy(opened), timeout: new Date(expiresAt) },
    "check",
    () => gate.check(opened),
  );
  const closed = await gate.close(sid(env, `${path}@1~close`), opened);
  if (closed.deadlineHit) return deadlineReached(env);
  return gate.outcome(closed);
}

/** An `approval` step (SPEC §4): decided through the inbox, the API, MCP or the CLI. */
export function runApproval(
  env: DriverEnv,
  path: string,
  node: { config?: unknown },
  key: AttemptKey,
  ctx: TemplateContext,
): Promise<StepOutcome> {
  return runGate(env, path, {
    open: (id) =>
      env.step.run(id, () =>
        env.stepEffects.bodies.openApprovalBody({
          key,
          workflowId: env.plan.workflowId,
          hash: env.plan.hash,
          config: node.config,
          context: ctx,
          initiatorUserId: env.plan.initiatorUserId,
          deadline: env.deadline,
        }),
      ),
    settledBy: (opened) => ({
      event: EVENTS.approvalDecided,
      if: `async.data.approvalId == ${JSON.stringify(opened.approvalId)}`,
    }),
    check: (opened) => env.stepEffects.bodies.checkApprovalBody({ approvalId: opened.approvalId }),
    close: (id, opened) =>
      env.step.run(id, () =>
        env.stepEffects.bodies.closeApprovalBody({
          key,
          approvalId: opened.approvalId,
          cappedByDeadline: opened.cappedByDeadline,
        }),
      ),
    outcome: (closed) => ({ kind: "completed", port: closed.port, output: closed.output }),
  });
}

/** A `task` step: completed or failed by its assignee (My queue, the API, MCP). */
export function runTask(
  env: DriverEnv,
  path: string,
  node: { config?: unknown },
  key: AttemptKey,
  ctx: TemplateContext,
): Promise<StepOutcome> {
  return runGate(env, path, {
    open: (id) =>
      env.step.run(id, () =>
        env.stepEffects.bodies.openTaskBody({
          key,
          workflowId: env.plan.workflowId,
          config: node.config,
          context: ctx,
          deadline: env.deadline,
        }),
      ),
    settledBy: (opened) => ({
      event: EVENTS.taskFinished,
      if: `async.data.taskId == ${JSON.stringify(opened.taskId)}`,
    }),
    check: (opened) => env.stepEffects.bodies.checkTaskBody({ taskId: opened.taskId }),
    close: (id, opened) =>
      env.step.run(id, () =>
        env.stepEffects.bodies.closeTaskBody({
          key,
          taskId: opened.taskId,
          cappedByDeadline: opened.cappedByDeadline,
        }),
      ),
    outcome: (closed) =>
      "error" in closed && closed.error
        ? { kind: "failed", error: closed.error }
        : { kind: "completed", port: "success", output: "output" in closed ? closed.output : null },
  });
}
