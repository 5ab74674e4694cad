import "server-only";
import { asc, eq, inArray, sql } from "drizzle-orm";
import type { Db } from "@/db/client";
import { triggerDeliveries, triggers, webhookInbox } from "@/db/schema";
import type { Logger } from "@/lib/log";
import { DomainError } from "../../errors";
import type { Keys } from "../../keys";
import type { ServiceConfig } from "../context";
import { admitQueuedRuns } from "../runs/admission";
import { RunBatchCache } from "../runs/run-batch-cache";
import { skipOverflowedRun } from "../runs/skip-overflowed-run";
import { startTriggerRun, triggerContext } from "./start-trigger-run";
import { definitionByHash } from "../workflows/version-content";
import { ownerGoneReason, ownerStatuses } from "./trigger-owner";

export interface AdmitterDeps {
  db: Db;
  keys: Keys;
  config: ServiceConfig;
  log: Logger;
  now?: () => Date;
}

type InboxRow = typeof webhookInbox.$inferSelect;
type Outcome =
  | { row: InboxRow; kind: "created"; runId: string; workflowId: string; hash: string }
  | { row: InboxRow; kind: "duplicate"; runId: string }
  | { row: InboxRow; kind: "failed"; reason: string };

export const ADMIT_BATCH = 200;
/**
 * A batch stops creating runs after this long (the rows it claimed but did not reach stay in the
 * inbox, first in line for the next batch): the admitter shares the event loop, the connection
 * pool and the CPU with accepting, so its transaction and its end-of-batch statements stay short
 * however long the backlog is.
 */
export const ADMIT_BATCH_MS = 100;

/**
 * Turns accepted inbox deliveries into runs, one batch per transaction: claims up to `limit`
 * rows (`for update skip locked`, so several processes share the work), creates each run with
 * its pre-generated id (in a savepoint: one bad delivery fails alone) for at most `maxMs` (the
 * rows not reached stay in the inbox, first in line), then runs admission once
 * per workspace, applies the "skip" overflow policy, writes the delivery rows and marks the inbox.
 * A delivery whose run cannot be created (workflow disabled or changed since, input no longer
 * valid) is marked failed and recorded as a `failed` delivery with the reason. Returns how many
 * inbox rows it settled.
 */
export async function admitWebhookDeliveries(
  deps: AdmitterDeps,
  opts: { limit?: number; maxMs?: number } = {},
): Promise<number> {
  const now = deps.now ?? (() => new Date());
  return deps.db.transaction(async (tx) => {
    // The claim must walk the pending index in order (cost ∝ limit): with statistics taken while
    // the inbox was empty (a fresh table, or before a burst) the planner instead sorts every
    // accepted row, so each batch cost grew with the backlog (27,000 rows: ~1 s per claim).
    await tx.execute(sql`select set_config('enable_sort', 'off', true)`);
    const rows = await tx
      .select()
      .from(webhookInbox)
      .where(eq(webhookInbox.status, "accepted"))
      .orderBy(asc(webhookInbox.createdAt))
      .limit(opts.limit ?? ADMIT_BATCH)
      .for("update", { skipLocked: true });
    await tx.execute(sql`select set_config('enable_sort', 'on', true)`);
    if (rows.length === 0) return 0;
    const triggerRows = await tx
      .select()
      .from(triggers)
      .where(inArray(triggers.id, [...new Set(rows.map((r) => r.triggerId))]));
    const triggerById = new Map(triggerRows.map((t) => [t.id, t]));
    // Runs count against each trigger's owner: one membership read for the whole batch.
    const owners = await ownerStatuses(tx, triggerRows);

    const outcomes: Outcome[] = [];
    const cache = new RunBatchCache();
    // Timed from here: waiting for a connection (a busy pool) must not shrink the batch, or a
    // saturated process would create one run per transaction, each paying the whole batch's cost.
    const started = performance.now();
    for (const row of rows) {
      // FIFO holds: the rows not reached are the newest claimed, and the oldest of the next batch.
      if (outcomes.length > 0 && performance.now() - started > (opts.maxMs ?? Infinity)) break;
      // The inbox row cascades with its trigger, so the trigger is there.
      const trigger = triggerById.get(row.triggerId)!;
      const ctx = triggerContext({ ...deps, now }, row.workspaceId, "webhook");
      const owner = owners.get(trigger.id)!;
      if (owner !== "member") {
        outcomes.push({
          row,
          kind: "failed",
          reason: `The run could not be started: ${ownerGoneReason(trigger.name, owner)}`,
        });
        continue;
      }
      try {
        const r = await tx.transaction((sp) =>
          startTriggerRun(sp, ctx, trigger, {
            input: row.input ?? {},
            payload: row.payload,
            idempotencyKey: row.deliveryKey,
            batch: { runId: row.runId, cache },
            owner: trigger.createdBy!,
          }),
        );
        // Deduplicated: a run with this key was started another way (before the inbox existed,
        // or by a sync-mode delivery); the delivery now points at that run.
        outcomes.push(
          r.deduplicated
            ? { row, kind: "duplicate", runId: r.run.id }
            : {
                row,
                kind: "created",
                runId: r.run.id,
                workflowId: trigger.workflowId,
                hash: r.run.hash,
              },
        );
      } catch (e) {
        if (!(e instanceof DomainError))
          deps.log.error("webhook delivery could not be admitted", {
            deliveryId: row.id,
            err: e,
          });
        const message = e instanceof DomainError ? e.message : "internal error (see the logs)";
        outcomes.push({ row, kind: "failed", reason: `The run could not be started: ${message}` });
      }
    }

    const at = now();
    const created = outcomes.filter((o) => o.kind === "created");
    for (const workspaceId of new Set(created.map((o) => o.row.workspaceId))) {
      const admitted = new Set(await admitQueuedRuns(tx, workspaceId, deps.config, at));
      for (const o of created) {
        if (o.row.workspaceId !== workspaceId || admitted.has(o.runId)) continue;
        const definition = await definitionByHash(tx, workspaceId, o.hash);
        if (definition.constraints.overflow === "skip")
          await skipOverflowedRun(tx, { runId: o.runId, workspaceId, definition }, at);
      }
    }
    const lastRun = new Map(created.map((o) => [o.row.triggerId, o.runId]));
    for (const [triggerId, runId] of lastRun)
      await tx
        .update(triggers)
        .set({ lastFiredAt: at, lastRunId: runId })
        .where(eq(triggers.id, triggerId));

    await tx
      .insert(triggerDeliveries)
      .values(
        outcomes.map((o) => ({
          id: o.row.id,
          workspaceId: o.row.workspaceId,
          triggerId: o.row.triggerId,
          receivedAt: o.row.createdAt,
          status: o.kind === "created" ? ("accepted" as const) : o.kind,
          reason:
            o.kind === "failed"
              ? o.reason
              : o.kind === "duplicate"
                ? "already received: the run started earlier for this delivery id is kept"
                : null,
          httpStatus: 202,
          deliveryKey: o.row.deliveryKey,
          runId: o.kind === "failed" ? null : o.runId,
          request: o.row.request,
        })),
      )
      .onConflictDoNothing();
    const settled = (kind: Outcome["kind"]) =>
      outcomes.filter((o) => o.kind === kind).map((o) => o.row.id);
    if (settled("created").length)
      await tx
        .update(webhookInbox)
        .set({ status: "admitted", admittedAt: at, input: null, payload: null })
        .where(inArray(webhookInbox.id, settled("created")));
    for (const o of outcomes) {
      if (o.kind === "duplicate")
        await tx
          .update(webhookInbox)
          .set({ status: "admitted", admittedAt: at, input: null, payload: null, runId: o.runId })
          .where(eq(webhookInbox.id, o.row.id));
      else if (o.kind === "failed")
        await tx
          .update(webhookInbox)
          .set({ status: "failed", error: o.reason, payload: null })
          .where(eq(webhookInbox.id, o.row.id));
    }
    return outcomes.length;
  });
}
