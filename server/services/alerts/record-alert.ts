import "server-only";
import { and, desc, eq, gt, inArray, sql } from "drizzle-orm";
import type { Db } from "@/db/client";
import { alerts } from "@/db/schema";
import { newId } from "@/lib/ids";
import type { AlertKind, AlertStatus } from "@/lib/schemas/alerts";
import { EVENTS } from "@/inngest/events";
import { enqueueOutbox } from "../outbox/enqueue-outbox";
import { channelsFor, loadWorkspaceAlerts } from "./alert-settings";

export interface AlertOccurrence {
  workspaceId: string;
  kind: AlertKind;
  /** What one window counts for: the workflow (failures, gates) or the trigger (rejects). */
  subjectId: string;
  workflowId: string | null;
  runId?: string | null;
  triggerId?: string | null;
  /** Unique per workspace and kind: recording the same occurrence again changes nothing. */
  occurrenceKey: string;
  summary: string;
  detail?: Record<string, unknown>;
}

export interface RecordedAlert {
  id: string;
  status: AlertStatus;
  suppressedCount: number;
  /** False when this occurrence was recorded before (a redelivered event, a repeated sweep). */
  isNew: boolean;
}

const SENT: AlertStatus[] = ["pending", "delivered", "failed", "skipped"];

/**
 * Records one occurrence and decides, durably and across processes, whether it is sent: the
 * first of its (kind, subject) in a window is, carrying how many were suppressed since the last
 * one sent; later ones in the window are stored as `suppressed`. Serialized per subject by an
 * advisory lock, so a burst racing in from several relays still sends exactly one. A sent alert's
 * delivery is an outbox message committed with it (delivered after this transaction, retried).
 */
export async function recordAlert(db: Db, occ: AlertOccurrence, now: Date): Promise<RecordedAlert> {
  return db.transaction(async (tx) => {
    const subject = `alert:${occ.workspaceId}:${occ.kind}:${occ.subjectId}`;
    await tx.execute(sql`select pg_advisory_xact_lock(hashtext(${subject}))`);
    const [existing] = await tx
      .select({ id: alerts.id, status: alerts.status, suppressedCount: alerts.suppressedCount })
      .from(alerts)
      .where(
        and(
          eq(alerts.workspaceId, occ.workspaceId),
          eq(alerts.kind, occ.kind),
          eq(alerts.occurrenceKey, occ.occurrenceKey),
        ),
      );
    if (existing) return { ...existing, isNew: false };

    const settings = await loadWorkspaceAlerts(tx, occ.workspaceId);
    const windowStart = new Date(now.getTime() - settings.windowMinutes * 60_000);
    const subjectIs = and(
      eq(alerts.workspaceId, occ.workspaceId),
      eq(alerts.kind, occ.kind),
      eq(alerts.subjectId, occ.subjectId),
    );
    const [lastSent] = await tx
      .select({ createdAt: alerts.createdAt })
      .from(alerts)
      .where(and(subjectIs, inArray(alerts.status, SENT)))
      .orderBy(desc(alerts.createdAt))
      .limit(1);
    const inWindow = !!lastSent && lastSent.createdAt > windowStart;

    let status: AlertStatus = "suppressed";
    let suppressedCount = 0;
    if (!inWindow) {
      const [counted] = await tx
        .select({ n: sql<number>`count(*)::int` })
        .from(alerts)
        .where(
          and(
            subjectIs,
            eq(alerts.status, "suppressed"),
            lastSent ? gt(alerts.createdAt, lastSent.createdAt) : undefined,
          ),
        );
      suppressedCount = counted?.n ?? 0;
      const channels = await channelsFor(tx, occ.workspaceId, occ.workflowId, settings);
      status = channels.length ? "pending" : "skipped";
    }
    const id = newId("alr");
    await tx.insert(alerts).values({
      id,
      workspaceId: occ.workspaceId,
      kind: occ.kind,
      subjectId: occ.subjectId,
      workflowId: occ.workflowId,
      runId: occ.runId ?? null,
      triggerId: occ.triggerId ?? null,
      occurrenceKey: occ.occurrenceKey,
      status,
      suppressedCount,
      summary: occ.summary,
      detail: occ.detail ?? {},
      createdAt: now,
    });
    if (status === "pending") {
      await enqueueOutbox(
        tx,
        [
          {
            workspaceId: occ.workspaceId,
            topic: "inngest",
            name: EVENTS.alertDeliver,
            payload: { alertId: id, workspaceId: occ.workspaceId },
            id: `alert_${id}`,
          },
        ],
        now,
      );
    }
    return { id, status, suppressedCount, isNew: true };
  });
}
