import "server-only";
import { asc, eq } from "drizzle-orm";
import { runSteps } from "@/db/schema";
import { RunRef } from "@/lib/schemas/runs";
import { fromZodError } from "../../errors";
import { requireRole, type ServiceContext } from "../context";
import { loadRun } from "./load-run";

/** Every step attempt of a run (loop iterations included), in the order they were recorded. */
export async function listRunSteps({ ctx, input }: { ctx: ServiceContext; input: unknown }) {
  const ws = requireRole(ctx, "viewer");
  const parsed = RunRef.safeParse(input);
  if (!parsed.success) throw fromZodError(parsed.error);
  const run = await loadRun(ctx.db, ws.id, parsed.data.runId);
  const rows = await ctx.db
    .select()
    .from(runSteps)
    .where(eq(runSteps.runId, run.id))
    .orderBy(asc(runSteps.createdAt), asc(runSteps.path), asc(runSteps.attempt));
  return rows.map((r) => ({
    ...r,
    durationMs: r.startedAt && r.finishedAt ? r.finishedAt.getTime() - r.startedAt.getTime() : null,
  }));
}
