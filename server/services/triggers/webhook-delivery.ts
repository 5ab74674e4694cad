import "server-only";
import { createHash } from "node:crypto";
import { sql } from "drizzle-orm";
import type { Db } from "@/db/client";
import { runs, triggerDeliveries } from "@/db/schema";
import { newId } from "@/lib/ids";
import type { Logger } from "@/lib/log";
import type { WebhookConfig } from "@/lib/schemas/triggers";
import { HTTP_STATUS, QuotaExceededError } from "../../errors";
import type { Keys } from "../../keys";
import type { ServiceConfig } from "../context";
import type { TriggerRow } from "./start-trigger-run";
import type { DeliveryRequest } from "./webhook-inbox";

/** The webhook receiver's vocabulary: its request and answer, delivery rows, quota refusals. */

export interface WebhookDeps {
  db: Db;
  keys: Keys;
  config: ServiceConfig;
  log: Logger;
  now?: () => Date;
}

export interface IncomingWebhook {
  method: string;
  path: string;
  headers: Headers;
  query: URLSearchParams;
  /** The raw body, read with a cap: `null` when it grew past `maxBytes`. */
  readBody(maxBytes: number): Promise<Buffer | null>;
}

export interface WebhookAnswer {
  status: number;
  body: Record<string, unknown>;
  headers?: Record<string, string>;
}

export type DeliveryStatus = (typeof triggerDeliveries.$inferInsert)["status"];

/** handle() met a cached entry that may be out of date: reload it and decide again. */
export const STALE = Symbol("stale");

export const errorAnswer = (
  status: number,
  code: string,
  message: string,
  extra: Record<string, unknown> = {},
): WebhookAnswer => ({
  status,
  body: { error: { code, message, ...extra } },
});

export type RecordDelivery = (
  status: DeliveryStatus,
  answer: WebhookAnswer,
  extra?: { id?: string; reason?: string; runId?: string | null; deliveryKey?: string | null },
) => Promise<WebhookAnswer>;

export type RejectDelivery = (
  status: number,
  code: string,
  reason: string,
  kind?: "rejected" | "too_large" | "rate_limited" | "failed",
  headers?: Record<string, string>,
) => Promise<WebhookAnswer | typeof STALE>;

export type QuotaAnswer = [
  status: number,
  code: string,
  reason: string,
  kind: "rate_limited",
  headers: Record<string, string>,
];

/** A quota refusal as the receiver answers it: 429 + Retry-After, or 403 for a standing cap. */
export function quotaAnswer(e: QuotaExceededError): QuotaAnswer {
  const retry = (e.details as { retryAfterSeconds?: number }).retryAfterSeconds;
  return [
    HTTP_STATUS[e.code],
    "quota_exceeded",
    e.message,
    "rate_limited",
    retry === undefined ? {} : { "retry-after": String(retry) },
  ];
}

export async function quotaRefusal(check: () => Promise<void>): Promise<QuotaAnswer | null> {
  try {
    await check();
    return null;
  } catch (e) {
    if (e instanceof QuotaExceededError) return quotaAnswer(e);
    throw e;
  }
}

/** The delivery's idempotency key: the preset's delivery id, the body hash, or none. */
export function deliveryKeyOf(
  config: WebhookConfig,
  deliveryId: string | null | undefined,
  payload: unknown,
  headers: Headers,
  body: Buffer,
): string | null {
  if (config.idempotency === "body_hash")
    return `sha256:${createHash("sha256").update(body).digest("hex")}`;
  if (config.idempotency !== "delivery_id") return null;
  const key =
    deliveryId ??
    (config.verification.preset === "stripe" &&
    payload &&
    typeof payload === "object" &&
    typeof (payload as { id?: unknown }).id === "string"
      ? (payload as { id: string }).id
      : null) ??
    headers.get(config.idHeader);
  return key ? key.slice(0, 200) : null;
}

/** A delivery row (every outcome but an inbox accept, whose row the admitter writes). */
export async function recordDelivery(
  db: Db,
  trigger: TriggerRow,
  receivedAt: Date,
  request: DeliveryRequest,
  status: DeliveryStatus,
  answer: WebhookAnswer,
  extra: { id?: string; reason?: string; runId?: string | null; deliveryKey?: string | null },
): Promise<WebhookAnswer> {
  await db.insert(triggerDeliveries).values({
    id: extra.id ?? newId("dlv"),
    workspaceId: trigger.workspaceId,
    triggerId: trigger.id,
    receivedAt,
    status,
    reason: extra.reason ?? null,
    httpStatus: answer.status,
    deliveryKey: extra.deliveryKey ?? null,
    // A duplicate of a delivery still in the inbox names a run that does not exist yet.
    runId: extra.runId
      ? sql`(select ${runs.id} from ${runs} where ${runs.id} = ${extra.runId})`
      : null,
    request: { ...request },
  });
  return answer;
}
