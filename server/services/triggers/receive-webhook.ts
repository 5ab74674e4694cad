import "server-only";
import { createHash } from "node:crypto";
import { and, eq, ne, sql } from "drizzle-orm";
import type { Db } from "@/db/client";
import { runs, triggerDeliveries, webhookInbox } from "@/db/schema";
import { newId } from "@/lib/ids";
import type { Logger } from "@/lib/log";
import type { WebhookConfig } from "@/lib/schemas/triggers";
import { applyMapping, mapRepositoryRef } from "@/lib/triggers/mapping";
import { filterMiss, headerMismatch } from "@/lib/triggers/webhook-gate";
import { resolveRunInput } from "@/lib/workflow";
import { TERMINAL_RUN_STATUSES } from "@/lib/workflow/status";
import { DomainError, HTTP_STATUS, QuotaExceededError } from "../../errors";
import { assertRunsLeft, takeWebhookRequest } from "../quotas/enforce-quotas";
import { loadWorkspaceQuota, type WorkspaceQuota } from "../quotas/workspace-quota";
import type { Keys } from "../../keys";
import { sensitiveHeaders, verifySignature } from "../../webhooks/signatures";
import { takeToken } from "../../webhooks/token-bucket";
import type { ServiceConfig } from "../context";
import { startTriggerRun, triggerContext, type TriggerRow } from "./start-trigger-run";
import { webhookEntry, type WebhookEntry } from "./webhook-cache";
import { insertIntoInbox, type DeliveryRequest } from "./webhook-inbox";
import { wakeWebhookAdmitter } from "./webhook-admitter";
import { deepJsonRefusal } from "@/lib/json-depth";
import { describePath, storableCopy, unstorableText } from "@/lib/storable-text";

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

type DeliveryStatus = (typeof triggerDeliveries.$inferInsert)["status"];

const BODY_PREVIEW_BYTES = 4096;
const TERMINAL = new Set<string>(TERMINAL_RUN_STATUSES);
/** handle() met a cached entry that may be out of date: reload it and decide again. */
const STALE = Symbol("stale");

const error = (
  status: number,
  code: string,
  message: string,
  extra: Record<string, unknown> = {},
): WebhookAnswer => ({
  status,
  body: { error: { code, message, ...extra } },
});

/** What survives a reload of the trigger: the body is read and the rate token taken once. */
interface Attempt {
  body?: Buffer | null;
  tokenTaken?: boolean;
  /** The workspace's quota, loaded once; `counted`: this request is in its per-minute count. */
  quota?: WorkspaceQuota;
  counted?: boolean;
}

/**
 * The webhook receiver (SPEC §7): finds the trigger by path, checks method, rate limit and size,
 * reads the raw body before any parsing, verifies the signature, maps the payload into run input.
 * In async mode a valid delivery is then accepted with ONE insert into `webhook_inbox` (with a
 * pre-generated run id; a repeated delivery key answers the first run) and the admitter creates
 * the run moments later; sync mode, coalescing workflows and every case the cached state cannot
 * settle take the direct path (startTriggerRun in the request). Every outcome — accepted,
 * duplicate, rejected with the reason, rate limited, too large, failed — is a delivery row
 * (accepted ones written by the admitter with the run); nothing is answered with a silent 200.
 */
export async function receiveWebhook(
  deps: WebhookDeps,
  req: IncomingWebhook,
): Promise<WebhookAnswer> {
  const attempt: Attempt = {};
  // No webhook path holds text Postgres cannot store; looking one up would fail in the driver.
  if (unstorableText(req.path))
    return error(404, "not_found", "No webhook is configured at this path");
  let { entry, fresh } = await webhookEntry(deps.db, deps.keys, req.path);
  for (;;) {
    if (!entry) return error(404, "not_found", "No webhook is configured at this path");
    const answer = await handle(deps, req, entry, fresh, attempt);
    if (answer !== STALE) return answer;
    ({ entry, fresh } = await webhookEntry(deps.db, deps.keys, req.path, { reload: true }));
  }
}

/** One pass over a delivery with `entry`; STALE (only when !fresh) asks for a reload. */
async function handle(
  deps: WebhookDeps,
  req: IncomingWebhook,
  entry: WebhookEntry,
  fresh: boolean,
  attempt: Attempt,
): Promise<WebhookAnswer | typeof STALE> {
  const now = deps.now ?? (() => new Date());
  const { trigger, config } = entry;
  if (!config)
    return fresh ? error(500, "internal", "This webhook's configuration is invalid") : STALE;
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
  // The delivery log keeps even a refused request: its text made storable (a NUL in the query or
  // the body would fail the insert — a 500 instead of the refusal).
  const summary = (): DeliveryRequest =>
    storableCopy({
      method: req.method,
      headers: recordedHeaders,
      query,
      bodyBytes: attempt.body?.length ?? null,
      bodyPreview: attempt.body
        ? attempt.body.subarray(0, BODY_PREVIEW_BYTES).toString("utf8")
        : null,
    });
  const record = (
    status: DeliveryStatus,
    answer: WebhookAnswer,
    extra: {
      id?: string;
      reason?: string;
      runId?: string | null;
      deliveryKey?: string | null;
    } = {},
  ) => recordDelivery(deps.db, trigger, now(), summary(), status, answer, extra);
  // A rejection decided on cached state is decided again on a fresh load before it is answered,
  // so a trigger enabled or re-keyed a moment ago is never refused by an old copy.
  const reject = (
    status: number,
    code: string,
    reason: string,
    kind: "rejected" | "too_large" | "rate_limited" | "failed" = "rejected",
    headers?: Record<string, string>,
    details?: unknown,
  ) =>
    fresh
      ? record(
          kind,
          { ...error(status, code, reason, details === undefined ? {} : { details }), headers },
          { reason },
        )
      : Promise.resolve(STALE);
  // A delivery the trigger does not want (header match, filter) is answered 2xx so the sender
  // does not retry it, and recorded with the reason; decided on fresh state, as refusals are.
  const skip = (reason: string) => {
    if (!fresh) return Promise.resolve(STALE);
    const deliveryId = newId("dlv");
    return record(
      "skipped",
      { status: 200, body: { skipped: true, reason, deliveryId } },
      { id: deliveryId, reason },
    );
  };

  if (!trigger.enabled) return reject(404, "not_found", "This webhook is disabled");
  if (req.method.toUpperCase() !== config.method)
    return reject(
      405,
      "method_not_allowed",
      `This webhook accepts ${config.method}, not ${req.method}`,
      "rejected",
      { allow: config.method },
    );
  if (!attempt.tokenTaken) {
    const bucket = takeToken(trigger.id, config.rateLimit, now().getTime());
    if (!bucket.ok)
      return reject(
        429,
        "rate_limited",
        `Rate limit of ${config.rateLimit.perMinute}/min exceeded`,
        "rate_limited",
        { "retry-after": String(bucket.retryAfterSeconds) },
      );
    attempt.tokenTaken = true;
  }
  // Workspace quota: webhook requests per minute (every trigger of the workspace together).
  attempt.quota ??= await loadWorkspaceQuota(deps.db, trigger.workspaceId, deps.config);
  if (!attempt.counted) {
    const refused = await quotaRefusal(() =>
      takeWebhookRequest(deps.db, attempt.quota!, trigger.workspaceId, now()),
    );
    if (refused) return reject(...refused);
    attempt.counted = true;
  }
  const declared = Number(req.headers.get("content-length") ?? NaN);
  if (Number.isFinite(declared) && declared > config.maxBodyBytes)
    return reject(
      413,
      "payload_too_large",
      `The body is ${declared} bytes; the limit is ${config.maxBodyBytes}`,
      "too_large",
    );
  if (attempt.body === undefined) attempt.body = await req.readBody(config.maxBodyBytes);
  const body = attempt.body;
  if (body === null || body.length > config.maxBodyBytes)
    return reject(
      413,
      "payload_too_large",
      `The body is larger than the ${config.maxBodyBytes}-byte limit`,
      "too_large",
    );

  const secrets: string[] = [];
  if (config.verification.preset !== "none") {
    if (!entry.secrets.ok) {
      deps.log.error("webhook secret cannot be decrypted", {
        triggerId: trigger.id,
        err: entry.secrets.reason,
      });
      return reject(
        500,
        "internal",
        "The webhook's secret cannot be read (master secret changed?)",
        "failed",
      );
    }
    if (entry.secrets.current) secrets.push(entry.secrets.current);
    if (
      entry.secrets.previous &&
      trigger.previousSecretExpiresAt &&
      trigger.previousSecretExpiresAt > now()
    )
      secrets.push(entry.secrets.previous);
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
  const wrongHeader = headerMismatch(config.requireHeaders, (name) => req.headers.get(name));
  if (wrongHeader) return skip(wrongHeader);

  let payload: unknown = null;
  const text = body.toString("utf8");
  const contentType = req.headers.get("content-type") ?? "";
  const isJson = /[/+]json\b/i.test(contentType);
  // A JSON body was promised and none came (a sender that lost its payload): refuse rather than
  // start a run from nothing. GET carries no body by definition (the shown sample sends none).
  if (isJson && text.trim() === "" && config.method !== "GET" && !config.allowEmptyBody)
    return reject(
      400,
      "empty_body",
      `The request declares ${contentType.split(";")[0]!.trim().slice(0, 100)} but has an empty body; send a JSON body, or allow empty bodies in the webhook's settings (allowEmptyBody)`,
    );
  if (isJson || (!contentType && /^\s*[[{]/.test(text))) {
    // Measured before parsing: a body nested thousands deep overflows the stack where it is stored.
    const deep = deepJsonRefusal(text);
    if (deep)
      return reject(
        400,
        "too_deep",
        `The body is invalid at ${deep.where}: ${deep.message}`,
        "rejected",
        undefined,
        {
          issues: [{ path: ["body", ...deep.path], message: deep.message }],
        },
      );
    try {
      payload = text.trim() === "" ? null : JSON.parse(text);
    } catch (e) {
      return reject(400, "invalid_json", `The body is not valid JSON: ${(e as Error).message}`);
    }
  } else if (text !== "") payload = text;
  // A NUL or a lone surrogate (valid JSON escapes) cannot be stored in jsonb: refuse it here, not
  // as a database error after the delivery was half-recorded.
  const unstorable = unstorableText({ query, body: payload });
  if (unstorable)
    return reject(
      400,
      "unstorable_text",
      `The request has text that cannot be stored at ${describePath(unstorable.path)}: ${unstorable.message}`,
    );

  const runPayload = {
    method: req.method,
    path: req.path,
    query,
    headers: recordedHeaders,
    body: payload,
  };
  const missed = filterMiss(config.filter, runPayload);
  if (missed) return skip(missed);

  const sources = {
    body: payload,
    query,
    headers: Object.fromEntries([...req.headers].map(([k, v]) => [k.toLowerCase(), v])),
  };
  const mapped = applyMapping(config.mapping, config.input, sources, entry.definition?.inputs);
  if (mapped.missing.length)
    return reject(
      422,
      "mapping_failed",
      `Mapped values are missing from the request: ${mapped.missing.join(", ")}`,
    );
  let repositoryRef: string | undefined;
  if (config.repositoryRef) {
    const ref = mapRepositoryRef(config.repositoryRef, sources);
    if (!ref.ok)
      return reject(
        422,
        ref.code === "missing" ? "repository_ref_missing" : "invalid_repository_ref",
        ref.reason,
      );
    repositoryRef = ref.ref;
  }
  const deliveryKey = deliveryKeyOf(config, verified.deliveryId, payload, req.headers, body);

  // Runs per month: an accepted delivery must become a run, so a spent month is refused here
  // (the run itself is counted when the admitter creates it).
  const noRunsLeft = await quotaRefusal(() =>
    assertRunsLeft(deps.db, attempt.quota!, trigger.workspaceId, now()),
  );
  if (noRunsLeft) return reject(...noRunsLeft);

  if (acceptsInInbox(entry, config, mapped.input)) {
    const deliveryId = newId("dlv");
    const runId = newId("run");
    const r = await insertIntoInbox(deps.db, entry, {
      id: deliveryId,
      runId,
      deliveryKey,
      input: mapped.input,
      payload: runPayload,
      request: summary(),
      at: now(),
    });
    if (r.kind === "accepted") {
      wakeWebhookAdmitter();
      return { status: 202, body: { runId, deliveryId } };
    }
    if (r.kind === "duplicate")
      return record(
        "duplicate",
        { status: 200, body: { runId: r.runId, duplicate: true } },
        { runId: r.runId, deliveryKey, reason: "already received: the existing run is answered" },
      );
    // The database no longer matches the cached entry: reload, or (already fresh: a change
    // raced this request) let the direct path decide on the database's own state.
    if (!fresh) return STALE;
  } else if (!fresh) return STALE;

  return startDirectly(deps, req, trigger, config, {
    input: mapped.input,
    payload: runPayload,
    repositoryRef,
    deliveryKey,
    record,
    reject,
  });
}

/**
 * The fast path's preconditions, on the cached workflow state: async mode, an owner who is still
 * a member (else the direct path records why nothing starts), an enabled workflow with a readable
 * current definition that accepts the input, and no coalescing (a coalesced
 * delivery is answered with another run's id, which only the direct path knows). Anything else
 * goes the direct way, which words every refusal exactly as createRun does — so does a delivery
 * that sets the run's repository ref: an inbox row has no place for it, and the direct path
 * decides the override before answering.
 */
function acceptsInInbox(
  entry: WebhookEntry,
  config: WebhookConfig,
  input: Record<string, unknown>,
): boolean {
  const d = entry.definition;
  return (
    config.mode === "async" &&
    entry.hasOwner &&
    !config.repositoryRef &&
    !!entry.workflow?.isEnabled &&
    !!d &&
    d.constraints.overflow !== "coalesce" &&
    resolveRunInput(d.inputs, input).ok
  );
}

type QuotaAnswer = [
  status: number,
  code: string,
  reason: string,
  kind: "rate_limited",
  headers: Record<string, string>,
];

/** A quota refusal as the receiver answers it: 429 + Retry-After, or 403 for a standing cap. */
function quotaAnswer(e: QuotaExceededError): QuotaAnswer {
  const retry = (e.details as { retryAfterSeconds?: number }).retryAfterSeconds;
  return [
    HTTP_STATUS[e.code],
    "quota_exceeded",
    e.message,
    "rate_limited",
    retry === undefined ? {} : { "retry-after": String(retry) },
  ];
}

async function quotaRefusal(check: () => Promise<void>): Promise<QuotaAnswer | null> {
  try {
    await check();
    return null;
  } catch (e) {
    if (e instanceof QuotaExceededError) return quotaAnswer(e);
    throw e;
  }
}

/** The delivery's idempotency key: the preset's delivery id, the body hash, or none. */
function deliveryKeyOf(
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
async function recordDelivery(
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

/** Today's synchronous path: the run is created in the request (and awaited in sync mode). */
async function startDirectly(
  deps: WebhookDeps,
  req: IncomingWebhook,
  trigger: TriggerRow,
  config: WebhookConfig,
  d: {
    input: Record<string, unknown>;
    payload: unknown;
    repositoryRef?: string;
    deliveryKey: string | null;
    record: (
      status: DeliveryStatus,
      answer: WebhookAnswer,
      extra?: { id?: string; reason?: string; runId?: string | null; deliveryKey?: string | null },
    ) => Promise<WebhookAnswer>;
    reject: (
      status: number,
      code: string,
      reason: string,
      kind?: "rejected" | "too_large" | "rate_limited" | "failed",
      headers?: Record<string, string>,
    ) => Promise<WebhookAnswer | typeof STALE>;
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
