import "server-only";
import { and, eq, ne } from "drizzle-orm";
import { runs, webhookInbox } from "@/db/schema";
import { newId } from "@/lib/ids";
import type { WebhookConfig } from "@/lib/schemas/triggers";
import { TERMINAL_RUN_STATUSES } from "@/lib/workflow/status";
import { DomainError, QuotaExceededError } from "../../errors";
import { startTriggerRun, triggerContext, type TriggerRow } from "./start-trigger-run";
import {
  quotaAnswer,
  type IncomingWebhook,
  type RecordDelivery,
  type RejectDelivery,
  type STALE,
  type WebhookAnswer,
  type WebhookDeps,
} from "./webhook-delivery";

const TERMINAL = new Set<string>(TERMINAL_RUN_STATUSES);

/** Today's synchronous path: the run is created in the request (and awaited in sync mode). */
export async function startDirectly(
  deps: WebhookDeps,
  req: IncomingWebhook,
  trigger: TriggerRow,
  config: WebhookConfig,
  d: {
    input: Record<string, unknown>;
    payload: unknown;
    repositoryRef?: string;
    deliveryKey: string | null;
    record: RecordDelivery;
    reject: RejectDelivery;
  },
): Promise<WebhookAnswer | typeof STALE> {
  const now = deps.now ?? (() => new Date());
  // The key may already sit in the inbox (accepted, run not created yet): answer that run, or
  // the admitter would later find this path's run and the id answered first would never exist.
  if (d.deliveryKey) {
    const [queued] = await deps.db
      .select({ runId: webhookInbox.runId })
      .from(webhookInbox)
      .where(
        and(
          eq(webhookInbox.triggerId, trigger.id),
          eq(webhookInbox.deliveryKey, d.deliveryKey),
          ne(webhookInbox.status, "failed"),
        ),
      )
      .limit(1);
    if (queued)
      return d.record(
        "duplicate",
        { status: 200, body: { runId: queued.runId, duplicate: true } },
        {
          runId: queued.runId,
          deliveryKey: d.deliveryKey,
          reason: "already received: the existing run is answered",
        },
      );
  }
  const ctx = triggerContext({ ...deps, now }, trigger.workspaceId, "webhook");
  let started: { runId: string; duplicate: boolean };
  try {
    started = await deps.db.transaction(async (tx) => {
      const r = await startTriggerRun(tx, ctx, trigger, {
        input: d.input,
        payload: d.payload,
        idempotencyKey: d.deliveryKey,
        repositoryRef: d.repositoryRef,
      });
      return { runId: r.run.id, duplicate: r.deduplicated };
    });
  } catch (e) {
    if (!(e instanceof DomainError)) throw e;
    if (e instanceof QuotaExceededError) return d.reject(...quotaAnswer(e));
    const status = e.code === "VALIDATION" ? 422 : 409;
    return d.reject(status, e.code.toLowerCase(), e.message, "failed");
  }
  if (started.duplicate)
    return d.record(
      "duplicate",
      { status: 200, body: { runId: started.runId, duplicate: true } },
      {
        runId: started.runId,
        deliveryKey: d.deliveryKey,
        reason: "already received: the existing run is answered",
      },
    );
  const deliveryId = newId("dlv");
  await d.record(
    "accepted",
    { status: 202, body: {} },
    { id: deliveryId, runId: started.runId, deliveryKey: d.deliveryKey },
  );
  if (config.mode === "async") return { status: 202, body: { runId: started.runId, deliveryId } };

  // Sync mode: wait for the run to finish, up to the configured time.
  const deadline = Date.now() + config.syncTimeoutSeconds * 1000;
  for (;;) {
    const [run] = await deps.db
      .select({ status: runs.status, output: runs.output, error: runs.error })
      .from(runs)
      .where(eq(runs.id, started.runId));
    if (run && TERMINAL.has(run.status))
      return {
        status: 200,
        body: {
          runId: started.runId,
          status: run.status,
          output: run.output ?? null,
          ...(run.error ? { error: run.error } : {}),
        },
      };
    if (Date.now() >= deadline)
      return {
        status: 202,
        body: { runId: started.runId, status: run?.status ?? "queued", timedOut: true },
      };
    await new Promise((r) => setTimeout(r, 100));
  }
}
