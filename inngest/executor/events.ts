/**
 * The event path: validate, assign ULIDs (derived from the SDK's id seed, so a retried send is
 * stored once), store, de-duplicate user-supplied ids for 24 h, then route — start triggered runs,
 * resume matching waits, cancel runs with a matching `cancelOn` — all in the caller's transaction,
 * so an event the API acknowledged has been fully applied.
 */
import { sql } from "drizzle-orm";
import { execRows } from "../../db/client";
import { executorEvents } from "../../db/schema/executor";
import type { TxCtx } from "./context";
import { matches } from "./expressions";
import { cancelExecution, createExecution } from "./lifecycle";
import { resumeWaits, waitCandidatesSql, type WaitCandidate } from "./pauses";
import { seededUlids, ulid } from "../../lib/ids";

export interface EventPayload {
  name: string;
  data: Record<string, unknown>;
  id?: string;
  ts?: number;
  user?: Record<string, unknown>;
  v?: string;
  [key: string]: unknown;
}

export class EventValidationError extends Error {
  override name = "EventValidationError";
}

const DEDUP_WINDOW_MS = 24 * 3_600_000;
export const INVOKED_EVENT = "inngest/function.invoked";
const SYSTEM_FN_EVENT = /^inngest\/function\./;

function validate(input: unknown, index: number): EventPayload {
  const where = `event[${index}]`;
  if (!input || typeof input !== "object" || Array.isArray(input))
    throw new EventValidationError(`${where} must be an object`);
  const e = input as Record<string, unknown>;
  if (typeof e.name !== "string" || !e.name.trim())
    throw new EventValidationError(`${where}.name must be a non-empty string`);
  if (
    e.data !== undefined &&
    e.data !== null &&
    (typeof e.data !== "object" || Array.isArray(e.data))
  ) {
    throw new EventValidationError(`${where}.data must be an object`);
  }
  if (e.id !== undefined && e.id !== null && typeof e.id !== "string")
    throw new EventValidationError(`${where}.id must be a string`);
  if (e.ts !== undefined && e.ts !== null && (typeof e.ts !== "number" || !Number.isFinite(e.ts))) {
    throw new EventValidationError(`${where}.ts must be a number (ms since the epoch)`);
  }
  return e as EventPayload;
}

export interface IngestOptions {
  /** `x-inngest-event-id-seed` from the SDK. */
  seed?: string | null;
  /** System events emitted by the executor itself. */
  internal?: boolean;
}

/** Stores and routes events; returns their ids in input order. */
export async function ingestEvents(
  c: TxCtx,
  inputs: unknown[],
  opts: IngestOptions = {},
): Promise<string[]> {
  if (!inputs.length) return [];
  const events = inputs.map(validate);
  const ids = seededUlids(opts.seed, events.length) ?? events.map(() => ulid(c.now));
  const payloads = events.map((e, i): EventPayload => {
    const { name, data, id, ts, ...rest } = e;
    return {
      ...rest,
      name,
      data: (data ?? {}) as Record<string, unknown>,
      id: typeof id === "string" && id ? id : ids[i],
      ts: typeof ts === "number" && ts > 0 ? ts : c.now,
    };
  });
  if (payloads.length === 1) {
    await ingestOne(c, payloads[0]!, ids[0]!, events[0]!.id);
    return ids;
  }
  const inserted = await c.tx
    .insert(executorEvents)
    .values(
      payloads.map((p, i) => ({
        id: ids[i]!,
        name: p.name,
        payload: p,
        externalId:
          typeof events[i]!.id === "string" && events[i]!.id ? (events[i]!.id as string) : null,
        receivedAt: new Date(c.now),
      })),
    )
    .onConflictDoNothing()
    .returning({ id: executorEvents.id });
  // A retried send with the same seed produces the same ids: those were already applied.
  const fresh = new Set(inserted.map((r) => r.id));

  for (const [i, event] of payloads.entries()) {
    const id = ids[i]!;
    if (!fresh.has(id)) continue;
    const externalId = events[i]!.id;
    if (typeof externalId === "string" && externalId) {
      const duplicateOf = await claimExternalId(c, externalId, id);
      if (duplicateOf) {
        await markDuplicate(c, id, duplicateOf, event.name, externalId);
        continue;
      }
    }
    await routeEvent(c, event, id);
  }
  if (!opts.internal)
    c.ex.log.debug("events accepted", {
      count: ids.length,
      names: [...new Set(payloads.map((p) => p.name))],
    });
  return ids;
}

/**
 * One event in one statement (the usual case: a run's start, a system event in the app's
 * transaction): store it, claim its user-supplied id for 24 h and read the waits it may resume.
 * All parts see the statement's one snapshot, so `holder` is the id's earlier holder when the
 * claim lost. Same outcome as the batch path below, two round trips fewer.
 */
async function ingestOne(
  c: TxCtx,
  event: EventPayload,
  id: string,
  externalInput: unknown,
): Promise<void> {
  const externalId = typeof externalInput === "string" && externalInput ? externalInput : null;
  const [row] = await execRows<{
    fresh: boolean;
    claimed: boolean;
    holder: string | null;
    waits: WaitCandidate[] | null;
  }>(
    c.tx,
    sql`with ev as (
          insert into executor_events (id, name, payload, external_id, received_at)
          values (${id}, ${event.name}, ${JSON.stringify(event)}::jsonb, ${externalId},
                  ${new Date(c.now).toISOString()}::timestamptz)
          on conflict do nothing returning id
        ), claim as (
          insert into executor_event_ids (external_id, event_id, expires_at)
          select ${externalId}::text, ev.id, ${new Date(c.now + DEDUP_WINDOW_MS).toISOString()}::timestamptz
          from ev where ${externalId}::text is not null
          on conflict (external_id) do update set event_id = excluded.event_id, expires_at = excluded.expires_at
            where executor_event_ids.expires_at <= ${new Date(c.now).toISOString()}::timestamptz
          returning event_id
        )
        select exists (select 1 from ev) as fresh,
               exists (select 1 from claim) as claimed,
               (select event_id from executor_event_ids where external_id = ${externalId}::text) as holder,
               (select json_agg(w) from (${waitCandidatesSql(event.name, c.now)}) w) as waits`,
  );
  // A retried send with the same seed produces the same id: that one was already applied.
  if (!row?.fresh) return;
  if (externalId && !row.claimed) {
    // Null when the holder committed during this statement (its snapshot predates it): read again.
    const duplicateOf =
      row.holder ??
      (
        await execRows<{ event_id: string }>(
          c.tx,
          sql`select event_id from executor_event_ids where external_id = ${externalId}`,
        )
      )[0]?.event_id ??
      "unknown";
    await markDuplicate(c, id, duplicateOf, event.name, externalId);
    return;
  }
  await routeEvent(c, event, id, row.waits ?? []);
}

/** Records that event `id` repeats `duplicateOf` (same external id within 24 h): it is not routed. */
async function markDuplicate(
  c: TxCtx,
  id: string,
  duplicateOf: string,
  name: string,
  externalId: string,
) {
  await execRows(
    c.tx,
    sql`update executor_events set duplicate_of = ${duplicateOf} where id = ${id}`,
  );
  c.ex.log.info("event ignored: its id was already used within 24 h", {
    name,
    externalId,
    duplicateOf,
  });
}

/** Claims a user-supplied id for 24 h; returns the event that already holds it, if any. */
async function claimExternalId(
  c: TxCtx,
  externalId: string,
  eventId: string,
): Promise<string | undefined> {
  const claimed = await execRows(
    c.tx,
    sql`insert into executor_event_ids (external_id, event_id, expires_at)
        values (${externalId}, ${eventId}, ${new Date(c.now + DEDUP_WINDOW_MS).toISOString()}::timestamptz)
        on conflict (external_id) do update set event_id = excluded.event_id, expires_at = excluded.expires_at
          where executor_event_ids.expires_at <= ${new Date(c.now).toISOString()}::timestamptz
        returning event_id`,
  );
  if (claimed.length) return undefined;
  const [holder] = await execRows<{ event_id: string }>(
    c.tx,
    sql`select event_id from executor_event_ids where external_id = ${externalId}`,
  );
  return holder?.event_id ?? "unknown";
}

async function routeEvent(
  c: TxCtx,
  event: EventPayload,
  eventId: string,
  waits?: WaitCandidate[],
): Promise<void> {
  const { registry } = c.ex;
  if (event.name === INVOKED_EVENT) {
    // Sent through the event API (step.invoke creates its child run directly): route by target id.
    const fnId = (event.data._inngest as { fn_id?: unknown } | undefined)?.fn_id;
    const fn = typeof fnId === "string" ? registry.get(fnId) : undefined;
    if (fn?.status === "active") await createExecution(c, { fn, event, eventId });
  } else {
    for (const { fn, expression } of registry.forEvent(event.name)) {
      // A function never reacts to system events about its own runs (no self-triggering loops).
      if (SYSTEM_FN_EVENT.test(event.name) && event.data.function_id === fn.id) continue;
      if (expression && !matches(expression, { event })) continue;
      await createExecution(c, { fn, event, eventId });
    }
  }
  await resumeWaits(c, event, eventId, waits);
  await cancelMatching(c, event, eventId);
}

/** `cancelOn`: cancels active runs whose cancel rule matches (`event` = trigger, `async` = this). */
async function cancelMatching(c: TxCtx, event: EventPayload, eventId: string): Promise<void> {
  for (const fn of c.ex.registry.cancelling(event.name)) {
    const rules = fn.cancel.filter((r) => r.event === event.name);
    const runs = await execRows<{
      id: string;
      event: Record<string, unknown>;
      event_id: string | null;
      created: number;
    }>(
      c.tx,
      sql`select id, event, event_id, (extract(epoch from created_at) * 1000)::float8 as created
          from executor_runs where function_id = ${fn.id} and status in ('queued', 'running')
          order by id`,
    );
    for (const run of runs) {
      if (run.event_id === eventId) continue; // the event that started the run cannot cancel it
      const hit = rules.some(
        (r) =>
          (r.timeoutMs === undefined || Number(run.created) + r.timeoutMs >= c.now) &&
          (!r.if || matches(r.if, { event: run.event, async: event })),
      );
      if (hit) await cancelExecution(c, run.id, `cancelled by event ${event.name} (${eventId})`);
    }
  }
}
