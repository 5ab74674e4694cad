import { inngest } from "../client";
import { reapRunsBody } from "@/server/services/runs/reap-runs-body";

/**
 * Every minute: overdue runs time out, unconfirmed cancels finish, runs whose engine execution is
 * gone fail (the watchdog), lost starts are re-sent, stranded queued runs are admitted.
 */
export const reapRuns = inngest.createFunction(
  { id: "reap-runs", name: "Reap runs", retries: 1, triggers: [{ cron: "* * * * *" }] },
  async ({ step }) => step.run("reap", () => reapRunsBody()),
);
