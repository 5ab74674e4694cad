import "server-only";
import { eq } from "drizzle-orm";
import type { Queryable } from "@/db/client";
import { triggers } from "@/db/schema";
import type { Db } from "@/db/client";
import { createRun, type CreateRunResult } from "../runs/create-run";
import type { RunBatchCache } from "../runs/run-batch-cache";
import type { ServiceConfig, ServiceContext } from "../context";
import type { Keys } from "../../keys";
import type { Logger } from "@/lib/log";
import { triggerOwner } from "./trigger-owner";

export type TriggerRow = typeof triggers.$inferSelect;

/**
 * A service context for work a trigger does on its own (webhook deliveries, schedule ticks, event
 * matches): the system acts inside the trigger's workspace.
 */
export function triggerContext(
  base: { db: Db; keys: Keys; config: ServiceConfig; log: Logger; now?: () => Date },
  workspaceId: string,
  name: "webhook" | "scheduler" | "events",
): ServiceContext {
  return {
    db: base.db,
    keys: base.keys,
    config: base.config,
    log: base.log,
    now: base.now ?? (() => new Date()),
    actor: { type: "system", name },
    workspace: { id: workspaceId, role: "owner" },
  };
}

export interface StartTriggerRunArgs {
  input: Record<string, unknown>;
  /** The immutable trigger payload the run keeps (`trigger.*` in templates). */
  payload: unknown;
  /** webhook: delivery id or body hash; schedule: trigger + tick; event: event id. */
  idempotencyKey: string | null;
  /** Webhooks: the ref read from the delivery, pinned instead of the definition's. */
  repositoryRef?: string;
  /** Who fired it: the trigger itself, or a user who pressed "fire now". */
  initiator?: { type: "user"; id: string };
  /**
   * The trigger's owner, already checked to be a member (the webhook admitter checks a whole
   * batch at once); otherwise it is looked up here.
   */
  owner?: string;
  /**
   * Part of a batch (the webhook admitter): the run gets this pre-generated id and stays queued;
   * admission and the trigger's "last fired" columns are the caller's, once per batch; `cache`
   * holds the reads the batch's runs share.
   */
  batch?: { runId: string; cache?: RunBatchCache };
}

/**
 * The one way every trigger kind starts a run: through createRun (admission, idempotency,
 * overflow policy, input validation), then the trigger's "last fired" columns in the same
 * transaction. The run counts against the user who fired it ("fire now") or else the trigger's
 * owner; a trigger whose owner left or was deleted starts nothing (trigger-owner.ts).
 */
export async function startTriggerRun(
  tx: Queryable,
  ctx: ServiceContext,
  trigger: TriggerRow,
  args: StartTriggerRunArgs,
): Promise<CreateRunResult> {
  const result = await createRun(tx, ctx, {
    workspaceId: trigger.workspaceId,
    workflowId: trigger.workflowId,
    input: args.input,
    trigger: { type: trigger.kind, id: trigger.id, payload: args.payload },
    initiator: args.initiator ?? { type: trigger.kind, id: trigger.id },
    accountableUserId: args.initiator?.id ?? args.owner ?? (await triggerOwner(tx, trigger)),
    idempotencyKey: args.idempotencyKey
      ? `${trigger.kind}:${trigger.id}:${args.idempotencyKey}`
      : null,
    runId: args.batch?.runId,
    deferAdmission: !!args.batch,
    batchCache: args.batch?.cache,
    ...(args.repositoryRef ? { repositoryOverride: { ref: args.repositoryRef } } : {}),
  });
  if (!result.deduplicated && !args.batch) {
    await tx
      .update(triggers)
      .set({ lastFiredAt: ctx.now(), lastRunId: result.run.id })
      .where(eq(triggers.id, trigger.id));
  }
  return result;
}
