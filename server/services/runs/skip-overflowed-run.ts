import "server-only";
import { getTableColumns } from "drizzle-orm";
import type { Queryable } from "@/db/client";
import { runs } from "@/db/schema";
import type { WorkflowDefinition } from "@/lib/workflow";
import { transitionRun } from "../run-state/transition";
import type { RunRow } from "./load-run";
import { appendRunEvents } from "./run-events";

/**
 * The "skip" overflow policy for a run admission left queued: cancels it (compare-and-set on
 * `queued`) with the reason. Returns the cancelled run, or undefined when it was not queued.
 */
export async function skipOverflowedRun(
  tx: Queryable,
  run: { runId: string; workspaceId: string; definition: WorkflowDefinition },
  now: Date,
): Promise<RunRow | undefined> {
  const {
    rows: [skipped],
  } = await transitionRun(tx, {
    id: run.runId,
    to: "cancelled",
    from: ["queued"],
    set: {
      finishedAt: now,
      updatedAt: now,
      error: {
        code: "overflow_skipped",
        message: `Skipped: the workflow's concurrency limit (${run.definition.constraints.maxConcurrentRuns}) or the workspace's run limit was reached and its overflow policy is "skip"`,
      },
    },
    returning: getTableColumns(runs),
  });
  if (skipped)
    await appendRunEvents(
      tx,
      [
        {
          runId: run.runId,
          workspaceId: run.workspaceId,
          type: "run.finished",
          data: { status: "cancelled", reason: "overflow_skipped" },
        },
      ],
      now,
    );
  return skipped;
}
