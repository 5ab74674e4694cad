import { inngest } from "../client";
import { sweepAlertsBody } from "@/server/services/alerts/alert-bodies";

/** Every 5 minutes: gates waiting too long and triggers rejecting deliveries (sweep-alerts.ts). */
export const sweepAlertsFn = inngest.createFunction(
  { id: "sweep-alerts", name: "Sweep alerts", retries: 1, triggers: [{ cron: "*/5 * * * *" }] },
  async ({ step }) => step.run("sweep", () => sweepAlertsBody()),
);
