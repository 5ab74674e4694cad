import "server-only";
import { sql } from "drizzle-orm";
import { execRows, type Queryable } from "@/db/client";
import { entryGuard, type WebhookEntry } from "./webhook-cache";

/** The request summary a delivery row keeps: redacted headers, query, body size and preview. */
export interface DeliveryRequest {
  method: string;
  headers: Record<string, string>;
  query: Record<string, string | string[]>;
  bodyBytes: number | null;
  bodyPreview: string | null;
}

export interface InboxDelivery {
  id: string;
  runId: string;
  deliveryKey: string | null;
  input: Record<string, unknown>;
  payload: unknown;
  request: DeliveryRequest;
  at: Date;
}

export type InboxResult =
  | { kind: "accepted" }
  /** The same delivery key was accepted before: answer its run. */
  | { kind: "duplicate"; runId: string }
  /** The trigger or workflow changed since `entry` was read: nothing was inserted. */
  | { kind: "stale" };

const json = (v: unknown) => sql`${JSON.stringify(v ?? null)}::jsonb`;

/**
 * Accepts a delivery with one statement: an inbox row guarded by the cached entry (the insert
 * selects from the trigger and its workflow only while they still match it), first key wins
 * (`on conflict do nothing`). Only when nothing was inserted does a second query tell a
 * duplicate from a stale entry. A key whose first delivery failed at admission is accepted
 * again, as a retry of a failed run start always was.
 */
export async function insertIntoInbox(
  db: Queryable,
  entry: WebhookEntry,
  d: InboxDelivery,
): Promise<InboxResult> {
  for (let tries = 0; tries < 3; tries++) {
    const inserted = await execRows(
      db,
      sql`insert into webhook_inbox
            (id, workspace_id, trigger_id, delivery_key, run_id, input, payload, request, created_at)
          select ${d.id}, t.workspace_id, t.id, ${d.deliveryKey}, ${d.runId}, ${json(d.input)},
                 ${json(d.payload)}, ${json(d.request)}, ${d.at.toISOString()}::timestamptz
          from triggers t join workflows w on w.id = t.workflow_id
          where ${entryGuard(entry)}
          on conflict (trigger_id, delivery_key) do nothing
          returning id`,
    );
    if (inserted.length) return { kind: "accepted" };
    if (!d.deliveryKey) return { kind: "stale" };
    const [first] = await execRows<{
      fresh: boolean;
      id: string | null;
      run_id: string | null;
      status: string | null;
    }>(
      db,
      sql`select exists (select 1 from triggers t join workflows w on w.id = t.workflow_id
                         where ${entryGuard(entry)}) as fresh,
                 i.id, i.run_id, i.status
          from (select 1) one
          left join webhook_inbox i
            on i.trigger_id = ${entry.trigger.id} and i.delivery_key = ${d.deliveryKey}`,
    );
    if (!first?.fresh) return { kind: "stale" };
    if (first.id && first.status !== "failed") return { kind: "duplicate", runId: first.run_id! };
    if (first.id)
      await execRows(
        db,
        sql`delete from webhook_inbox where id = ${first.id} and status = 'failed' returning id`,
      );
  }
  return { kind: "stale" };
}
