import "server-only";
import { createHash } from "node:crypto";
import { and, eq } from "drizzle-orm";
import type { Db } from "@/db/client";
import { runs, triggerDeliveries, triggers } from "@/db/schema";
import { newId } from "@/lib/ids";
import type { Logger } from "@/lib/log";
import { WebhookConfig } from "@/lib/schemas/triggers";
import { applyMapping } from "@/lib/triggers/mapping";
import { TERMINAL_RUN_STATUSES } from "@/lib/workflow/status";
import { DomainError } from "../../errors";
import type { Keys } from "../../keys";
import { sensitiveHeaders, verifySignature } from "../../webhooks/signatures";
import { takeToken } from "../../webhooks/token-bucket";
import type { ServiceConfig } from "../context";
import { startTriggerRun, triggerContext, type TriggerRow } from "./start-trigger-run";
import { openWebhookSecret } from "./trigger-secret";
import { describePath, unstorableText } from "@/lib/storable-text";

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

const BODY_PREVIEW_BYTES = 4096;
const TERMINAL = new Set<string>(TERMINAL_RUN_STATUSES);

const error = (
  status: number,
  code: string,
  message: string,
  extra: Record<string, unknown> = {},
): WebhookAnswer => ({
  status,
  body: { error: { code, message, ...extra } },
});

/**
 * The webhook receiver (SPEC §7): finds the trigger by path, checks method, rate limit and size,
 * reads the raw body before any parsing, verifies the signature, maps the payload into run input
 * and starts the run through startTriggerRun (idempotent by delivery id or body hash). Every
 * outcome — accepted, duplicate, rejected with the reason, rate limited, too large, failed — is a
 * delivery row; nothing is answered with a silent 200.
 */
export async function receiveWebhook(
  deps: WebhookDeps,
  req: IncomingWebhook,
): Promise<WebhookAnswer> {
  const now = deps.now ?? (() => new Date());
  const [trigger] = await deps.db
    .select()
    .from(triggers)
    .where(and(eq(triggers.path, req.path), eq(triggers.kind, "webhook")))
    .limit(1);
  if (!trigger) return error(404, "not_found", "No webhook is configured at this path");
  const parsedConfig = WebhookConfig.safeParse(trigger.config);
  if (!parsedConfig.success)
    return error(500, "internal", "This webhook's configuration is invalid");
  const config = parsedConfig.data;
  const hidden = sensitiveHeaders(config.verification);
  const recordedHeaders: Record<string, string> = {};
  req.headers.forEach((value, name) => {
    recordedHeaders[name] = hidden.has(name.toLowerCase()) ? "[redacted]" : value.slice(0, 500);
  });
  const query: Record<string, string | string[]> = {};
  for (const key of new Set(req.query.keys())) {
    const all = req.query.getAll(key);
    query[key] = all.length === 1 ? all[0]! : all;
  }
  let body: Buffer | null = null;
  const record = async (
    status: (typeof triggerDeliveries.$inferInsert)["status"],
    answer: WebhookAnswer,
    extra: { reason?: string; runId?: string | null; deliveryKey?: string | null } = {},
  ): Promise<WebhookAnswer> => {
    await deps.db.insert(triggerDeliveries).values({
      id: newId("dlv"),
      workspaceId: trigger.workspaceId,
      triggerId: trigger.id,
      receivedAt: now(),
      status,
      reason: extra.reason ?? null,
      httpStatus: answer.status,
      deliveryKey: extra.deliveryKey ?? null,
      runId: extra.runId ?? null,
      request: {
        method: req.method,
        headers: recordedHeaders,
        query,
        bodyBytes: body?.length ?? null,
        bodyPreview: body ? body.subarray(0, BODY_PREVIEW_BYTES).toString("utf8") : null,
      },
    });
    return answer;
  };
  const reject = (
    status: number,
    code: string,
    reason: string,
    kind: "rejected" | "too_large" | "rate_limited" | "failed" = "rejected",
    headers?: Record<string, string>,
  ) => record(kind, { ...error(status, code, reason), headers }, { reason });

  if (!trigger.enabled) return reject(404, "not_found", "This webhook is disabled");
  if (req.method.toUpperCase() !== config.method)
    return reject(
      405,
      "method_not_allowed",
      `This webhook accepts ${config.method}, not ${req.method}`,
      "rejected",
      { allow: config.method },
    );
  const bucket = takeToken(trigger.id, config.rateLimit, now().getTime());
  if (!bucket.ok)
    return reject(
      429,
      "rate_limited",
      `Rate limit of ${config.rateLimit.perMinute}/min exceeded`,
      "rate_limited",
      {
        "retry-after": String(bucket.retryAfterSeconds),
      },
    );
  const declared = Number(req.headers.get("content-length") ?? NaN);
  if (Number.isFinite(declared) && declared > config.maxBodyBytes)
    return reject(
      413,
      "payload_too_large",
      `The body is ${declared} bytes; the limit is ${config.maxBodyBytes}`,
      "too_large",
    );
  body = await req.readBody(config.maxBodyBytes);
  if (body === null)
    return reject(
      413,
      "payload_too_large",
      `The body is larger than the ${config.maxBodyBytes}-byte limit`,
      "too_large",
    );

  const secrets: string[] = [];
  if (config.verification.preset !== "none") {
    try {
      if (trigger.secret)
        secrets.push(openWebhookSecret(deps.keys, trigger.workspaceId, trigger.id, trigger.secret));
      if (
        trigger.previousSecret &&
        trigger.previousSecretExpiresAt &&
        trigger.previousSecretExpiresAt > now()
      )
        secrets.push(
          openWebhookSecret(deps.keys, trigger.workspaceId, trigger.id, trigger.previousSecret),
        );
    } catch (e) {
      deps.log.error("webhook secret cannot be decrypted", {
        triggerId: trigger.id,
        err: (e as Error).message,
      });
      return reject(
        500,
        "internal",
        "The webhook's secret cannot be read (master secret changed?)",
        "failed",
      );
    }
  }
  const verified = verifySignature({
    verification: config.verification,
    secrets,
    headers: req.headers,
    body,
    now: now(),
  });
  if (!verified.ok)
    return reject(401, "invalid_signature", `Signature rejected: ${verified.reason}`);

  let payload: unknown = null;
  const text = body.toString("utf8");
  const contentType = req.headers.get("content-type") ?? "";
  if (/[/+]json\b/i.test(contentType) || (!contentType && /^\s*[[{]/.test(text))) {
    try {
      payload = text.trim() === "" ? null : JSON.parse(text);
    } catch (e) {
      return reject(400, "invalid_json", `The body is not valid JSON: ${(e as Error).message}`);
    }
  } else if (text !== "") payload = text;
  // A NUL or a lone surrogate (valid JSON escapes) cannot be stored in jsonb: refuse it here, not
  // as a database error after the delivery was half-recorded.
  const unstorable = unstorableText(payload);
  if (unstorable)
    return reject(
      400,
      "unstorable_text",
      `The body has text that cannot be stored at ${describePath(["body", ...unstorable.path])}: ${unstorable.message}`,
    );

  const mapped = applyMapping(config.mapping, config.input, {
    body: payload,
    query,
    headers: Object.fromEntries([...req.headers].map(([k, v]) => [k.toLowerCase(), v])),
  });
  if (mapped.missing.length)
    return reject(
      422,
      "mapping_failed",
      `Mapped values are missing from the request: ${mapped.missing.join(", ")}`,
    );

  let deliveryKey: string | null = null;
  if (config.idempotency === "body_hash")
    deliveryKey = `sha256:${createHash("sha256").update(body).digest("hex")}`;
  else if (config.idempotency === "delivery_id") {
    deliveryKey =
      verified.deliveryId ??
      (config.verification.preset === "stripe" &&
      payload &&
      typeof payload === "object" &&
      typeof (payload as { id?: unknown }).id === "string"
        ? (payload as { id: string }).id
        : null) ??
      req.headers.get(config.idHeader);
    if (deliveryKey) deliveryKey = deliveryKey.slice(0, 200);
  }

  const ctx = triggerContext({ ...deps, now }, trigger.workspaceId, "webhook");
  let started: { runId: string; duplicate: boolean };
  try {
    started = await deps.db.transaction(async (tx) => {
      const r = await startTriggerRun(tx, ctx, trigger as TriggerRow, {
        input: mapped.input,
        payload: {
          method: req.method,
          path: req.path,
          query,
          headers: recordedHeaders,
          body: payload,
        },
        idempotencyKey: deliveryKey,
      });
      return { runId: r.run.id, duplicate: r.deduplicated };
    });
  } catch (e) {
    if (!(e instanceof DomainError)) throw e;
    const status = e.code === "VALIDATION" ? 422 : 409;
    return reject(status, e.code.toLowerCase(), e.message, "failed");
  }
  if (started.duplicate)
    return record(
      "duplicate",
      { status: 200, body: { runId: started.runId, duplicate: true } },
      {
        runId: started.runId,
        deliveryKey,
        reason: "already received: the existing run is answered",
      },
    );
  await record("accepted", { status: 202, body: {} }, { runId: started.runId, deliveryKey });
  if (config.mode === "async") return { status: 202, body: { runId: started.runId } };

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
