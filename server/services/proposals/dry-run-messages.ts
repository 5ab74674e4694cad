import "server-only";
import type { Queryable } from "@/db/client";
import { EVENTS, type ProposalDryRunRequestedData } from "@/inngest/events";
import { enqueueOutbox } from "../outbox/enqueue-outbox";

/** Asks the proposal-dry-run function for a (new) dry run, in the caller's transaction. */
export async function dryRunRequestMessage(
  tx: Queryable,
  data: ProposalDryRunRequestedData,
  now: Date,
): Promise<void> {
  await enqueueOutbox(
    tx,
    [
      {
        workspaceId: data.workspaceId,
        topic: "inngest",
        name: EVENTS.proposalDryRunRequested,
        payload: { ...data },
        id: `dryrun_${data.proposalId}_${data.request}`,
      },
    ],
    now,
  );
}
