import "server-only";
import { and, eq } from "drizzle-orm";
import type { Db } from "@/db/client";
import { runs, triggerDeliveries, triggers, workflows } from "@/db/schema";
import { newId } from "@/lib/ids";
import { EventConfig } from "@/lib/schemas/triggers";
import { applyMapping } from "@/lib/triggers/mapping";
import { matchEvent, MAX_EVENT_CHAIN_DEPTH, type WorkflowEvent } from "@/lib/triggers/events";
import { DomainError } from "../../errors";
import type { ServiceContext } from "../context";
import { startTriggerRun } from "./start-trigger-run";
import { currentDefinition } from "./webhook-cache";

export interface FireEventResult {
  started: string[];
  /** Triggers that matched but could not start a run, with the reason. */
  failed: { triggerId: string; reason: string }[];
}

/**
 * Starts a run for every enabled event trigger of the workspace that matches the event. Called by
 * the outbox relay for each delivered workflow event (at least once), so it is idempotent: the
 * event id is the run's idempotency key, and a delivery row is written only for a new run or a
 * failure. Events caused by event-started runs carry a chain depth; deep chains stop (loops such
 * as "run.completed starts the same workflow" end instead of running forever).
 */
export async function fireEventTriggers(
  db: Db,
  ctx: (workspaceId: string) => ServiceContext,
  workspaceId: string,
  event: WorkflowEvent,
): Promise<FireEventResult> {
  const result: FireEventResult = { started: [], failed: [] };
  const candidates = await db
    .select()
    .from(triggers)
    .where(
      and(
        eq(triggers.workspaceId, workspaceId),
        eq(triggers.kind, "event"),
        eq(triggers.enabled, true),
      ),
    );
  if (candidates.length === 0) return result;
  const depth = await chainDepth(db, workspaceId, event);

  for (const trigger of candidates) {
    const parsed = EventConfig.safeParse(trigger.config);
    if (!parsed.success) continue;
    if (!matchEvent(parsed.data, event).matches) continue;
    const payload = { ...event, depth };
    const record = async (status: "failed", reason: string) => {
      await db.insert(triggerDeliveries).values({
        id: newId("dlv"),
        workspaceId,
        triggerId: trigger.id,
        receivedAt: ctx(workspaceId).now(),
        status,
        reason,
        deliveryKey: event.id,
        request: { event: { id: event.id, name: event.name } },
      });
      result.failed.push({ triggerId: trigger.id, reason });
    };
    if (depth > MAX_EVENT_CHAIN_DEPTH) {
      await record(
        "failed",
        `event chain deeper than ${MAX_EVENT_CHAIN_DEPTH}: not started (loop guard)`,
      );
      continue;
    }
    const [wf] = await db
      .select({ currentVersionId: workflows.currentVersionId })
      .from(workflows)
      .where(and(eq(workflows.id, trigger.workflowId), eq(workflows.workspaceId, workspaceId)));
    const definition = await currentDefinition(db, workspaceId, wf?.currentVersionId);
    const mapped = applyMapping(
      parsed.data.mapping,
      parsed.data.input,
      { body: event },
      definition?.inputs,
    );
    if (mapped.missing.length) {
      await record("failed", `mapped values missing from the event: ${mapped.missing.join(", ")}`);
      continue;
    }
    try {
      const svc = ctx(workspaceId);
      const runId = await db.transaction(async (tx) => {
        const r = await startTriggerRun(tx, svc, trigger, {
          input: mapped.input,
          payload,
          idempotencyKey: event.id,
        });
        if (!r.deduplicated) {
          await tx.insert(triggerDeliveries).values({
            id: newId("dlv"),
            workspaceId,
            triggerId: trigger.id,
            receivedAt: svc.now(),
            status: "accepted",
            deliveryKey: event.id,
            runId: r.run.id,
            request: { event: { id: event.id, name: event.name } },
          });
        }
        return r.run.id;
      });
      result.started.push(runId);
    } catch (e) {
      // A domain error (disabled workflow, invalid input, no published version) is the trigger's
      // problem, recorded for its owner; anything else is retried by the relay.
      if (!(e instanceof DomainError)) throw e;
      await record("failed", (e as Error).message);
    }
  }
  return result;
}

/** 0 for events from outside runs; parent depth + 1 for events caused by an event-started run. */
async function chainDepth(db: Db, workspaceId: string, event: WorkflowEvent): Promise<number> {
  const runId = typeof event.source?.runId === "string" ? event.source.runId : null;
  if (!runId) return 0;
  const [run] = await db
    .select({ triggerType: runs.triggerType, payload: runs.triggerPayload })
    .from(runs)
    .where(and(eq(runs.workspaceId, workspaceId), eq(runs.id, runId)));
  if (!run || run.triggerType !== "event") return 0;
  const parent = (run.payload as { depth?: unknown } | null)?.depth;
  return (typeof parent === "number" ? parent : 0) + 1;
}
