import "server-only";
import { and, eq } from "drizzle-orm";
import type { Queryable } from "@/db/client";
import { runs } from "@/db/schema";
import { NotFoundError } from "../../errors";

export type RunRow = typeof runs.$inferSelect;

/** A run of the workspace, or NotFound (another workspace's run ids look exactly the same). */
export async function loadRun(
  db: Queryable,
  workspaceId: string,
  runId: string,
  opts: { forUpdate?: boolean } = {},
): Promise<RunRow> {
  const q = db
    .select()
    .from(runs)
    .where(and(eq(runs.id, runId), eq(runs.workspaceId, workspaceId)))
    .limit(1);
  const [row] = opts.forUpdate ? await q.for("update") : await q;
  if (!row) throw new NotFoundError("Run", runId);
  return row;
}

/** A run's current status (null if the run is gone): the engine's cancel watch polls it. */
export async function currentRunStatus(db: Queryable, runId: string) {
  const [row] = await db.select({ status: runs.status }).from(runs).where(eq(runs.id, runId));
  return row?.status ?? null;
}
