import { evaluateSchedules } from "@/server/services/triggers/evaluate-schedules";
import { inngest } from "../client";
import { runtimeNow, stepRuntime } from "@/server/services/step-execution/runtime";

/**
 * Every minute: fire due schedule triggers (SPEC §7). Each tick is claimed by a unique row, so two
 * executors (or a retried step) never double-fire. `now` is never earlier than the cron event's
 * own time: an executor clock slightly ahead of ours must not push this minute's tick to the next
 * evaluation, where it would count as missed.
 */
export const evaluateSchedulesFn = inngest.createFunction(
  {
    id: "evaluate-schedules",
    name: "Evaluate schedules",
    retries: 1,
    triggers: [{ cron: "* * * * *" }],
  },
  async ({ event, step }) =>
    step.run("evaluate", async () => {
      const rt = await stepRuntime();
      const scheduled = typeof event.ts === "number" ? event.ts : 0;
      const now = new Date(Math.max(runtimeNow().getTime(), scheduled));
      return evaluateSchedules({ ...rt, log: rt.log.child({ component: "scheduler" }), now });
    }),
);
