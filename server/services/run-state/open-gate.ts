import "server-only";
import type { Db, Tx } from "@/db/client";
import { appendRunEvents } from "../runs/run-events";
import { refreshRunStatus } from "./run-plan";
import { beginAttempt, markAttemptWaitingIn, type AttemptKey } from "./step-records";

/**
 * Opens a gate a step waits on (an approval, a task): records the attempt, then in ONE
 * transaction the gate's record, its `*.requested` event, and the step and run marked waiting —
 * so a reader never sees an open gate on a run still shown running (run waits and the CLI stop
 * at it at once). Idempotent per (run, step path, attempt): a re-executed durable step gets the
 * record it created the first time (`find`), and no second event.
 */
export async function openGate<Row extends { id: string }>(
  db: Db,
  a: {
    key: AttemptKey;
    now: Date;
    /** What the step row shows as the attempt's input. */
    attemptInput: unknown;
    /** Inserts the record; undefined when it already exists (ON CONFLICT DO NOTHING). */
    insert: (tx: Tx) => Promise<Row | undefined>;
    /** The existing record for the attempt. */
    find: (tx: Tx) => Promise<Row>;
    requested: (row: Row) => { type: string; data: Record<string, unknown> };
    /** Detail on the `step.waiting` event (the record's id). */
    waiting: (row: Row) => Record<string, unknown>;
  },
): Promise<Row> {
  await beginAttempt(db, a.key, { input: a.attemptInput, now: a.now });
  const row = await db.transaction(async (tx) => {
    const created = await a.insert(tx);
    if (created) {
      const event = a.requested(created);
      await appendRunEvents(
        tx,
        [
          {
            runId: a.key.runId,
            workspaceId: a.key.workspaceId,
            type: event.type,
            stepPath: a.key.path,
            data: event.data,
          },
        ],
        a.now,
      );
    }
    const row = created ?? (await a.find(tx));
    await markAttemptWaitingIn(tx, a.key, a.now, a.waiting(row));
    return row;
  });
  // Again after the commit: a branch that ended meanwhile could not see this step waiting.
  await refreshRunStatus(db, a.key.runId, a.now);
  return row;
}
