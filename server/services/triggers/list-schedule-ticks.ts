import "server-only";
import { and, desc, eq, lt } from "drizzle-orm";
import { scheduleTicks, triggers } from "@/db/schema";
import { ListScheduleTicksInput } from "@/lib/schemas/schedules";
import { fromZodError, NotFoundError } from "../../errors";
import { requireRole, type ServiceContext } from "../context";

/** A schedule's recent ticks (fired, skipped, missed, failed) with reasons and runs, newest first. */
export async function listScheduleTicks({ ctx, input }: { ctx: ServiceContext; input: unknown }) {
  const ws = requireRole(ctx, "viewer");
  const parsed = ListScheduleTicksInput.safeParse(input);
  if (!parsed.success) throw fromZodError(parsed.error);
  const { triggerId, limit, cursor } = parsed.data;
  const [trigger] = await ctx.db
    .select({ id: triggers.id })
    .from(triggers)
    .where(
      and(
        eq(triggers.id, triggerId),
        eq(triggers.workspaceId, ws.id),
        eq(triggers.kind, "schedule"),
      ),
    );
  if (!trigger) throw new NotFoundError("Schedule", triggerId);
  const rows = await ctx.db
    .select({
      tick: scheduleTicks.tick,
      status: scheduleTicks.status,
      reason: scheduleTicks.reason,
      runId: scheduleTicks.runId,
      claimedAt: scheduleTicks.claimedAt,
    })
    .from(scheduleTicks)
    .where(
      and(
        eq(scheduleTicks.triggerId, trigger.id),
        eq(scheduleTicks.workspaceId, ws.id),
        cursor ? lt(scheduleTicks.tick, new Date(cursor)) : undefined,
      ),
    )
    .orderBy(desc(scheduleTicks.tick))
    .limit(limit + 1);
  const items = rows.slice(0, limit);
  return {
    items,
    nextCursor: rows.length > limit ? items[items.length - 1]!.tick.toISOString() : null,
  };
}
