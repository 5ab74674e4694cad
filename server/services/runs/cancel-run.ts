import "server-only";
import { and, eq, inArray } from "drizzle-orm";
import { runs } from "@/db/schema";
import { CancelRunInput } from "@/lib/schemas/runs";
import { EVENTS } from "@/inngest/events";
import { PreconditionFailedError, fromZodError } from "../../errors";
import { requireRole, type ServiceContext } from "../context";
import { recordAudit } from "../audit/record-audit";
import { finishRun } from "../run-state/finish-run";
import { enqueueOutbox } from "../outbox/enqueue-outbox";
import { appendRunEvents } from "./run-events";
import { loadRun } from "./load-run";
import { EXECUTING_STATUSES } from "@/lib/workflow/status";
import { transitionRun } from "../run-state/transition";

/**
 * Cancels a run. A queued run ends at once. An active one moves to `cancel_requested` (compare-
 * and-set) and its execution is stopped: running steps see the request (scripts get SIGTERM, then
 * SIGKILL after 10 s), the durable execution is cancelled, and the run ends `cancelled` once no
 * script of it is alive (finalizeCancelledRun). Its active child runs are cancelled with it.
 */
export async function cancelRun({ ctx, input }: { ctx: ServiceContext; input: unknown }) {
  const ws = requireRole(ctx, "editor");
  const parsed = CancelRunInput.safeParse(input);
  if (!parsed.success) throw fromZodError(parsed.error);
  const { runId, reason } = parsed.data;
  const now = ctx.now();
  const run = await loadRun(ctx.db, ws.id, runId);
  // A recording has no durable execution to stop (its recorder drives it): it ends at once too,
  // and a call in flight sees the run end and stops.
  const isRecording = run.triggerType === "recording";
  if (run.status === "queued" || isRecording) {
    const r = await finishRun(
      ctx.db,
      ctx.config,
      {
        runId,
        status: "cancelled",
        reason: isRecording ? "recording_cancelled" : "cancelled_while_queued",
        error: {
          code: "cancelled",
          message: reason
            ? `Cancelled: ${reason}`
            : isRecording
              ? "The recording was cancelled"
              : "Cancelled before it started",
        },
      },
      now,
    );
    if (r.changed) {
      await recordAudit(ctx.db, ctx, {
        action: "run.cancelled",
        targetType: "run",
        targetId: runId,
        data: { reason: reason ?? null },
      });
      return { runId, status: "cancelled" as const };
    }
  }
  return ctx.db.transaction(async (tx) => {
    const ids = [runId, ...(await activeDescendants(tx, ws.id, runId))];
    const { rows: moved } = await transitionRun(tx, {
      id: ids,
      to: "cancel_requested",
      where: eq(runs.workspaceId, ws.id),
      set: { cancelRequestedAt: now, updatedAt: now },
    });
    if (!moved.some((m) => m.id === runId)) {
      const current = await loadRun(tx, ws.id, runId);
      if (current.status === "cancel_requested")
        return { runId, status: "cancel_requested" as const };
      throw new PreconditionFailedError(`The run already ended (${current.status})`);
    }
    await appendRunEvents(
      tx,
      moved.map((m) => ({
        runId: m.id,
        workspaceId: ws.id,
        type: "run.cancel_requested",
        data: { reason: reason ?? null },
      })),
      now,
    );
    await enqueueOutbox(
      tx,
      moved.map((m) => ({
        workspaceId: ws.id,
        topic: "inngest" as const,
        name: EVENTS.runCancel,
        payload: { runId: m.id, workspaceId: ws.id, reason: reason ?? "cancelled" },
        id: `cancel_${m.id}`,
      })),
      now,
    );
    await recordAudit(tx, ctx, {
      action: "run.cancel_requested",
      targetType: "run",
      targetId: runId,
      data: { reason: reason ?? null, children: moved.length - 1 },
    });
    return { runId, status: "cancel_requested" as const };
  });
}

async function activeDescendants(
  tx: Parameters<typeof loadRun>[0],
  workspaceId: string,
  runId: string,
): Promise<string[]> {
  const out: string[] = [];
  let frontier = [runId];
  for (let depth = 0; frontier.length && depth < 10; depth++) {
    const children = await tx
      .select({ id: runs.id })
      .from(runs)
      .where(
        and(
          eq(runs.workspaceId, workspaceId),
          inArray(runs.parentRunId, frontier),
          inArray(runs.status, ["queued", ...EXECUTING_STATUSES]),
        ),
      );
    frontier = children.map((c) => c.id);
    out.push(...frontier);
  }
  return out;
}
