import "server-only";
import { EmitEventsBody, SYSTEM_EVENT_NAMES } from "@/lib/schemas/triggers";
import { fromZodError, ValidationError } from "../../errors";
import { auditActor, requireRole, type ServiceContext } from "../context";
import { enqueueWorkflowEvents } from "../run-state/workflow-events";

const RESERVED_PREFIXES = ["run.", "proposal.", "sluice/", "inngest/"];

/**
 * Publishes workflow events from outside a run (`POST /api/v1/events`, the UI's "send test
 * event"): written to the outbox in one transaction, then delivered to event triggers and waiting
 * `wait_for_event` steps. System event names (`run.*`, `proposal.*`) cannot be forged.
 */
export async function emitEvents({ ctx, input }: { ctx: ServiceContext; input: unknown }) {
  const ws = requireRole(ctx, "editor");
  const parsed = EmitEventsBody.safeParse(input);
  if (!parsed.success) throw fromZodError(parsed.error);
  const events = Array.isArray(parsed.data) ? parsed.data : [parsed.data];
  events.forEach((e, i) => {
    if (
      (SYSTEM_EVENT_NAMES as readonly string[]).includes(e.name) ||
      RESERVED_PREFIXES.some((p) => e.name.startsWith(p))
    ) {
      throw new ValidationError(
        `Event "${e.name}" uses a reserved name: run.*, proposal.*, sluice/* and inngest/* are system events`,
        [{ path: Array.isArray(parsed.data) ? [i, "name"] : ["name"], message: "reserved name" }],
      );
    }
  });
  const actor = auditActor(ctx);
  const ids = await ctx.db.transaction((tx) =>
    enqueueWorkflowEvents(
      tx,
      ws.id,
      events.map((e) => ({
        id: e.id,
        name: e.name,
        data: e.data,
        source: { [actor.actorType]: actor.actorId },
      })),
      ctx.now(),
    ),
  );
  // Outbox ids are `ev:<workspace>:<event id>`: answer with the event ids the caller knows.
  return { ids: ids.map((id) => id.slice(`ev:${ws.id}:`.length)) };
}
