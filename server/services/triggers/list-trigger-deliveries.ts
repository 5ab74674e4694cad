import "server-only";
import { and, desc, eq, lt } from "drizzle-orm";
import { z } from "zod";
import type { Db } from "@/db/client";
import { runs, triggerDeliveries } from "@/db/schema";
import { fromZodError } from "../../errors";
import { requireRole, type ServiceContext } from "../context";
import { loadTrigger } from "./load-trigger";

const Input = z.object({
  triggerId: z.string().min(1).max(64),
  limit: z.number().int().min(1).max(100).default(20),
  /** `receivedAt` ISO of the last row seen (older rows follow). */
  before: z.iso.datetime().optional(),
});
export const ListTriggerDeliveriesInput = Input;

/** A trigger's recent deliveries (newest first), with each started run's status. */
export async function listTriggerDeliveries({
  ctx,
  input,
}: {
  ctx: ServiceContext;
  input: unknown;
}) {
  const ws = requireRole(ctx, "viewer");
  const parsed = Input.safeParse(input);
  if (!parsed.success) throw fromZodError(parsed.error);
  const trigger = await loadTrigger(ctx.db, ws.id, parsed.data.triggerId);
  return deliveryPage(ctx.db, trigger.id, parsed.data.limit, parsed.data.before);
}

/** One page of a (already authorized) trigger's deliveries, newest first. */
export async function deliveryPage(db: Db, triggerId: string, limit: number, before?: string) {
  const rows = await db
    .select({ d: triggerDeliveries, runStatus: runs.status })
    .from(triggerDeliveries)
    .leftJoin(runs, eq(runs.id, triggerDeliveries.runId))
    .where(
      and(
        eq(triggerDeliveries.triggerId, triggerId),
        before ? lt(triggerDeliveries.receivedAt, new Date(before)) : undefined,
      ),
    )
    .orderBy(desc(triggerDeliveries.receivedAt))
    .limit(limit + 1);
  const page = rows.slice(0, limit);
  return {
    items: page.map(({ d, runStatus }) => ({
      id: d.id,
      receivedAt: d.receivedAt,
      status: d.status,
      reason: d.reason,
      httpStatus: d.httpStatus,
      deliveryKey: d.deliveryKey,
      runId: d.runId,
      runStatus: runStatus ?? null,
      request: d.request,
    })),
    nextBefore: rows.length > limit ? page.at(-1)!.d.receivedAt.toISOString() : null,
  };
}
