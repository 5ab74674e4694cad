import { inngest } from "../client";
import { retentionBody } from "@/server/services/retention/retention-body";

/** Daily at 03:17 UTC: deletes runs and step rows past their retention (SPEC §5). */
export const retention = inngest.createFunction(
  { id: "retention", name: "Retention", retries: 2, triggers: [{ cron: "17 3 * * *" }] },
  async ({ step }) => step.run("delete-expired", () => retentionBody()),
);
