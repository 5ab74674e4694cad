import "server-only";
import { and, asc, eq, gt } from "drizzle-orm";
import { runEvents } from "@/db/schema";
import { z } from "zod";
import { fromZodError } from "../../errors";
import { requireRole, type ServiceContext } from "../context";
import { loadRun } from "./load-run";

const Input = z.object({
  runId: z.string().min(1).max(64),
  after: z.number().int().min(0).default(0),
  limit: z.number().int().min(1).max(1000).default(500),
});

/** The run's append-only history after event id `after` (live views poll or stream this). */
export async function listRunEvents({ ctx, input }: { ctx: ServiceContext; input: unknown }) {
  const ws = requireRole(ctx, "viewer");
  const parsed = Input.safeParse(input);
  if (!parsed.success) throw fromZodError(parsed.error);
  const run = await loadRun(ctx.db, ws.id, parsed.data.runId);
  return ctx.db
    .select({
      id: runEvents.id,
      type: runEvents.type,
      stepPath: runEvents.stepPath,
      data: runEvents.data,
      createdAt: runEvents.createdAt,
    })
    .from(runEvents)
    .where(and(eq(runEvents.runId, run.id), gt(runEvents.id, parsed.data.after)))
    .orderBy(asc(runEvents.id))
    .limit(parsed.data.limit);
}
