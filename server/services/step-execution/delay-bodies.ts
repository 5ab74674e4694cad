import "server-only";
import { parseDuration, type StepConfig, type TemplateContext } from "@/lib/workflow";
import {
  beginAttempt,
  endAttempt,
  type AttemptKey,
} from "@/server/services/run-state/step-records";
import { runtimeNow, stepRuntime } from "./runtime";
import { failStep, message, resolve } from "./step-bodies";

/** Server-side bodies of the `delay` step. */

export async function beginDelayBody(a: {
  key: AttemptKey;
  config: unknown;
  context: TemplateContext;
  deadline: number;
}) {
  const { db } = await stepRuntime();
  let c: StepConfig<"delay">;
  try {
    c = resolve("delay", a.config, a.context) as StepConfig<"delay">;
  } catch (e) {
    return failStep(
      a.key,
      `The delay's config is invalid after resolving templates: ${message(e)}`,
    );
  }
  const now = runtimeNow().getTime();
  const target = c.until ? Date.parse(c.until) : now + parseDuration(c.duration as string);
  if (Number.isNaN(target)) return failStep(a.key, `"${c.until}" is not a date`);
  const until = Math.min(Math.max(target, now), a.deadline);
  await beginAttempt(db, a.key, { input: c, status: "waiting", now: runtimeNow() });
  return { until: new Date(until).toISOString(), cappedByDeadline: target > a.deadline };
}

export async function endDelayBody(a: {
  key: AttemptKey;
  until: string;
  cappedByDeadline: boolean;
}) {
  const { db } = await stepRuntime();
  const output = { type: "delay", data: { until: a.until }, meta: {} };
  await endAttempt(
    db,
    a.key,
    a.cappedByDeadline
      ? { status: "cancelled", error: { message: "The run reached its deadline during the delay" } }
      : { status: "completed", output },
    runtimeNow(),
  );
  return { output, deadlineHit: a.cappedByDeadline };
}
