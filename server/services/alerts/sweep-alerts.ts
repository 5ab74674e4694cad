import "server-only";
import { and, eq, gt, lt, sql } from "drizzle-orm";
import type { Db } from "@/db/client";
import { approvals, tasks, triggerDeliveries, triggers, workflows } from "@/db/schema";
import { loadWorkspaceAlerts } from "./alert-settings";
import { recordAlert } from "./record-alert";

/** The shortest gate age a workspace can set (WorkspaceAlertSettings.gateAgeHours min). */
const MIN_GATE_AGE_MS = 3_600_000;
/** The longest window (WorkspaceAlertSettings.windowMinutes max): rejects older never count. */
const MAX_WINDOW_MS = 10_080 * 60_000;
const LIMIT = 500;

/**
 * Periodic alerts (inngest/functions/sweep-alerts.ts, every 5 minutes): gates (approvals and
 * tasks) waiting longer than the workspace's gate age, and triggers with at least the threshold
 * of rejected deliveries in the window. Each occurrence has a stable key (the gate; the trigger
 * and window), so repeated sweeps record it once; recordAlert rate-limits what is sent.
 */
export async function sweepAlerts(db: Db, now: Date): Promise<{ recorded: number }> {
  let recorded = 0;
  const oldest = new Date(now.getTime() - MIN_GATE_AGE_MS);
  const gates = [
    ...(
      await db
        .select({
          id: approvals.id,
          workspaceId: approvals.workspaceId,
          workflowId: approvals.workflowId,
          runId: approvals.runId,
          stepId: approvals.stepId,
          createdAt: approvals.createdAt,
        })
        .from(approvals)
        .where(and(eq(approvals.status, "pending"), lt(approvals.createdAt, oldest)))
        .limit(LIMIT)
    ).map((g) => ({ ...g, gate: "approval" as const })),
    ...(
      await db
        .select({
          id: tasks.id,
          workspaceId: tasks.workspaceId,
          workflowId: tasks.workflowId,
          runId: tasks.runId,
          stepId: tasks.stepId,
          createdAt: tasks.createdAt,
        })
        .from(tasks)
        .where(and(eq(tasks.status, "pending"), lt(tasks.createdAt, oldest)))
        .limit(LIMIT)
    ).map((g) => ({ ...g, gate: "task" as const })),
  ];
  const settings = new Map<string, Awaited<ReturnType<typeof loadWorkspaceAlerts>>>();
  const settingsOf = async (workspaceId: string) => {
    let s = settings.get(workspaceId);
    if (!s) settings.set(workspaceId, (s = await loadWorkspaceAlerts(db, workspaceId)));
    return s;
  };
  for (const g of gates) {
    if (!g.workflowId) continue;
    const { gateAgeHours } = await settingsOf(g.workspaceId);
    if (gateAgeHours === null) continue;
    const hours = (now.getTime() - g.createdAt.getTime()) / 3_600_000;
    if (hours < gateAgeHours) continue;
    const r = await recordAlert(
      db,
      {
        workspaceId: g.workspaceId,
        kind: "gate_waiting",
        subjectId: g.workflowId,
        workflowId: g.workflowId,
        runId: g.runId,
        occurrenceKey: `${g.gate}:${g.id}`,
        summary: `${g.gate === "approval" ? "Approval" : "Task"} "${g.stepId}" has waited ${Math.floor(hours)} h (threshold ${gateAgeHours} h)`,
        detail: { gate: g.gate, gateId: g.id, stepId: g.stepId, waitingSince: g.createdAt },
      },
      now,
    );
    if (r.isNew) recorded++;
  }

  const since = new Date(now.getTime() - MAX_WINDOW_MS);
  const rejecting = await db
    .select({ workspaceId: triggerDeliveries.workspaceId })
    .from(triggerDeliveries)
    .where(and(eq(triggerDeliveries.status, "rejected"), gt(triggerDeliveries.receivedAt, since)))
    .groupBy(triggerDeliveries.workspaceId)
    .limit(LIMIT);
  for (const { workspaceId } of rejecting) {
    const { rejectThreshold, windowMinutes } = await settingsOf(workspaceId);
    if (rejectThreshold === null) continue;
    const windowMs = windowMinutes * 60_000;
    const counts = await db
      .select({
        triggerId: triggerDeliveries.triggerId,
        workflowId: triggers.workflowId,
        workflowName: workflows.name,
        n: sql<number>`count(*)::int`,
      })
      .from(triggerDeliveries)
      .innerJoin(triggers, eq(triggers.id, triggerDeliveries.triggerId))
      .innerJoin(workflows, eq(workflows.id, triggers.workflowId))
      .where(
        and(
          eq(triggerDeliveries.workspaceId, workspaceId),
          eq(triggerDeliveries.status, "rejected"),
          gt(triggerDeliveries.receivedAt, new Date(now.getTime() - windowMs)),
        ),
      )
      .groupBy(triggerDeliveries.triggerId, triggers.workflowId, workflows.name)
      .having(sql`count(*) >= ${rejectThreshold}`)
      .limit(LIMIT);
    for (const c of counts) {
      const r = await recordAlert(
        db,
        {
          workspaceId,
          kind: "trigger_rejecting",
          subjectId: c.triggerId,
          workflowId: c.workflowId,
          triggerId: c.triggerId,
          occurrenceKey: `${c.triggerId}:${Math.floor(now.getTime() / windowMs)}`,
          summary: `A trigger of workflow "${c.workflowName}" rejected ${c.n} deliveries in the last ${windowMinutes} min`,
          detail: { rejected: c.n, windowMinutes },
        },
        now,
      );
      if (r.isNew) recorded++;
    }
  }
  return { recorded };
}
