import { recordedRunReplay } from "@/inngest/run-driver/replay";
import { EVENTS, ProposalDryRunRequestedData } from "@/inngest/events";
import { dryRunDefinition } from "@/server/services/proposals/dry-run";
import {
  loadRecordedRuns,
  recordDryRun,
  startDryRun,
} from "@/server/services/proposals/dry-run-state";
import { loadWorkspacePolicy } from "@/server/services/settings/load-workspace-policy";
import { inngest } from "../client";
import { runtimeNow, stepRuntime } from "@/server/services/step-execution/runtime";
import { stepEffects } from "./step-effects";

const replayRecordedRun = recordedRunReplay(stepEffects);

/**
 * Replays the workflow's last finished runs through a proposal's definition (side effects taken
 * from what each run recorded) and stores the report: pending → running → done | failed. A newer
 * request for the same proposal makes this one's writes no-ops.
 */
export const proposalDryRun = inngest.createFunction(
  {
    id: "proposal-dry-run",
    name: "Proposal dry run",
    retries: 2,
    triggers: [{ event: EVENTS.proposalDryRunRequested }],
  },
  async ({ event, step }) => {
    const req = ProposalDryRunRequestedData.parse(event.data);
    const total = await step.run("start", async () => {
      const { db } = await stepRuntime();
      const job = await startDryRun(db, { ...req, total: 0 }, runtimeNow());
      if (!job) return null;
      const { proposalDryRunRuns } = await loadWorkspacePolicy(db, req.workspaceId);
      const runs = await loadRecordedRuns(db, req.workspaceId, job.workflowId, proposalDryRunRuns);
      await recordDryRun(
        db,
        { ...req, status: "running", done: 0, total: runs.length },
        runtimeNow(),
      );
      return runs.length;
    });
    if (total === null) return { skipped: "superseded request or closed proposal" };
    return step.run("replay", async () => {
      const { db } = await stepRuntime();
      const job = await startDryRun(db, { ...req, total }, runtimeNow());
      if (!job) return { skipped: "superseded request" };
      // Loaded again (a step's result must be small); runs that finished meanwhile count too.
      const { proposalDryRunRuns } = await loadWorkspacePolicy(db, req.workspaceId);
      const runs = await loadRecordedRuns(db, req.workspaceId, job.workflowId, proposalDryRunRuns);
      try {
        const report = await dryRunDefinition({
          replay: replayRecordedRun,
          definition: job.definition,
          baseHash: job.baseHash,
          proposedHash: job.proposedHash,
          runs,
          workflowId: job.workflowId,
          now: runtimeNow,
          onProgress: async (done) => {
            await recordDryRun(
              db,
              { ...req, status: "running", done, total: runs.length },
              runtimeNow(),
            );
          },
        });
        await recordDryRun(
          db,
          { ...req, status: "done", done: runs.length, total: runs.length, report, error: null },
          runtimeNow(),
        );
        return { runs: runs.length, totals: report.totals };
      } catch (e) {
        // A definition the replay cannot run is the proposal's problem, not a retryable outage.
        const message = e instanceof Error ? e.message : String(e);
        await recordDryRun(db, { ...req, status: "failed", error: message }, runtimeNow());
        return { failed: message };
      }
    });
  },
);
