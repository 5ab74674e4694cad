import type { StepOutcome, TemplateContext } from "@/lib/workflow";
import type { AttemptKey } from "@/server/services/run-state/step-records";
import { EVENTS } from "../events";
import { checkTaskBody, closeTaskBody, openTaskBody } from "./task-bodies";
import { raceWait } from "./race-wait";
import { sid, type EngineEnv } from "./types";

const HALTED: StepOutcome = { kind: "cancelled", reason: "run_ended" };

/**
 * A `task` step: open the task, wait (durably, holding the run's admission slot as `waiting`)
 * for it to be completed or failed — or for its timeout — then close the step from the record.
 * Same shape as the approval gate: the wait races a check for an outcome recorded before the
 * wait was registered.
 */
export async function runTask(
  env: EngineEnv,
  path: string,
  node: { config?: unknown },
  key: AttemptKey,
  ctx: TemplateContext,
): Promise<StepOutcome> {
  const opened = await env.step.run(sid(env, `${path}@1~open`), () =>
    openTaskBody({
      key,
      workflowId: env.plan.workflowId,
      config: node.config,
      context: ctx,
      deadline: env.deadline,
    }),
  );
  if ("error" in opened) return { kind: "failed", error: opened.error };
  if (env.halted) return HALTED;
  await raceWait(
    env,
    path,
    {
      event: EVENTS.taskFinished,
      if: `async.data.taskId == ${JSON.stringify(opened.taskId)}`,
      timeout: new Date(opened.expiresAt),
    },
    "check",
    () => checkTaskBody({ taskId: opened.taskId }),
  );
  const closed = await env.step.run(sid(env, `${path}@1~close`), () =>
    closeTaskBody({ key, taskId: opened.taskId, cappedByDeadline: opened.cappedByDeadline }),
  );
  if (closed.deadlineHit) {
    env.abort ??= {
      status: "timed_out",
      reason: "deadline",
      message: "The run reached its deadline",
    };
    return { kind: "cancelled", reason: "deadline" };
  }
  if ("error" in closed) return { kind: "failed", error: closed.error };
  return { kind: "completed", port: "success", output: closed.output };
}
