import type { DryRunRunReport } from "@/lib/workflow/dry-run-types";
import { recordedRunReplay } from "@/inngest/run-driver/replay";
import { EVENTS, ProposalShadowRunData } from "@/inngest/events";
import { dryRunOne } from "@/server/services/proposals/dry-run";
import { loadRecordedRun } from "@/server/services/proposals/dry-run-state";
import { appendShadowRun, shadowTargets } from "@/server/services/proposals/shadow-runs";
import { contentOf } from "@/server/services/workflows/version-content";
import { inngest } from "../client";
import { runtimeNow, stepRuntime } from "@/server/services/step-execution/runtime";
import { stepEffects } from "./step-effects";

const replayRecordedRun = recordedRunReplay(stepEffects);

/**
 * Shadow runs (issue #29 item 2): each real run that finishes while an open proposal sits on its
 * version (finishRun sends `sluice/proposal.shadow-run` through the outbox in the finishing
 * transaction only then; test and cancelled runs send none) is replayed on every such proposal,
 * and the report is added to that proposal's evidence (at most SHADOW_RUNS_PER_PROPOSAL).
 * Nothing is executed and no run is created, so no run quota is touched.
 */
export const proposalShadowRun = inngest.createFunction(
  {
    id: "proposal-shadow-run",
    name: "Proposal shadow run",
    retries: 2,
    triggers: [{ event: EVENTS.proposalShadowRun }],
  },
  async ({ event, step }) => {
    const parsed = ProposalShadowRunData.safeParse(event.data);
    if (!parsed.success) return { skipped: "not a shadow-run event" };
    const { workspaceId, runId } = parsed.data;
    return step.run("replay", async () => {
      const { db } = await stepRuntime();
      const loaded = await loadRecordedRun(db, workspaceId, runId);
      if (!loaded?.workflowId || !loaded.versionId) return { skipped: "no saved workflow version" };
      const targets = await shadowTargets(db, workspaceId, {
        runId,
        workflowId: loaded.workflowId,
        versionId: loaded.versionId,
      });
      let added = 0;
      for (const t of targets) {
        const definition = await contentOf(db, workspaceId, t.proposedHash);
        const report = await dryRunOne(replayRecordedRun, definition, loaded.run, {
          workflowId: loaded.workflowId,
        }).catch((e: unknown) => failedReplay(runId, e instanceof Error ? e.message : String(e)));
        const stored = { ...report, replayedAt: runtimeNow().toISOString() };
        if (await appendShadowRun(db, workspaceId, t.id, stored)) added++;
      }
      return { proposals: targets.length, added };
    });
  },
);

/** A replay that threw (a definition the driver cannot run): evidence of nothing, stored as such. */
function failedReplay(runId: string, message: string): DryRunRunReport {
  return {
    runId,
    replayError: message,
    failure: { stepPath: null, message },
    verdict: "not_comparable",
    newlyExecuted: [],
    newlySkipped: [],
    notComparable: [],
    outputBefore: null,
    outputAfter: null,
    outputChanged: false,
    outcome: "cannot_tell",
  };
}
