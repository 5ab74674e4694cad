import "server-only";
import { and, desc, eq, lt } from "drizzle-orm";
import { z } from "zod";
import type { Db } from "@/db/client";
import { runs, triggerDeliveries, webhookInbox } from "@/db/schema";
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

/**
 * One page of a (already authorized) trigger's deliveries, newest first. Webhook deliveries the
 * admitter has not settled yet (normally for milliseconds) come from the inbox, as `accepted`
 * with the run id they were answered and no run status yet.
 */
export async function deliveryPage(db: Db, triggerId: string, limit: number, before?: string) {
  const pending = await db
    .select()
    .from(webhookInbox)
    .where(
      and(
        eq(webhookInbox.triggerId, triggerId),
        eq(webhookInbox.status, "accepted"),
        before ? lt(webhookInbox.createdAt, new Date(before)) : undefined,
      ),
    )
    .orderBy(desc(webhookInbox.createdAt))
    .limit(limit + 1);
  const settled = await db
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
  const rows = [
    ...settled.map(({ d, runStatus }) => ({
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
    ...pending.map((p) => ({
      id: p.id,
      receivedAt: p.createdAt,
      status: "accepted" as const,
      reason: null,
      httpStatus: 202,
      deliveryKey: p.deliveryKey,
      runId: p.runId,
      runStatus: null,
      request: p.request,
    })),
  ].sort((a, b) => b.receivedAt.getTime() - a.receivedAt.getTime());
  const page = rows.slice(0, limit);
  return {
    items: page,
    nextBefore: rows.length > limit ? page.at(-1)!.receivedAt.toISOString() : null,
  };
}
