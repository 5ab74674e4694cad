import { env } from "@/env";
import { expireProposals as expireProposalsBody } from "@/server/services/proposals/expire-proposals";
import { inngest } from "../client";
import { runtimeNow, stepRuntime } from "@/server/services/step-execution/runtime";

/**
 * Daily at 03:41 UTC: open proposals past their 14 days become `expired`; closed ones older than
 * SLUICE_PROPOSAL_RETENTION_DAYS (365) are deleted (their audit rows stay).
 */
export const expireProposals = inngest.createFunction(
  {
    id: "expire-proposals",
    name: "Expire proposals",
    retries: 2,
    triggers: [{ cron: "41 3 * * *" }],
  },
  async ({ step }) =>
    step.run("expire", async () => {
      const { db } = await stepRuntime();
      return expireProposalsBody(db, runtimeNow(), {
        retentionDays: env.SLUICE_PROPOSAL_RETENTION_DAYS,
      });
    }),
);
