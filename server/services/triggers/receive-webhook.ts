import "server-only";
import { newId } from "@/lib/ids";
import type { WebhookConfig } from "@/lib/schemas/triggers";
import { applyMapping, mapRepositoryRef } from "@/lib/triggers/mapping";
import { filterMiss, headerMismatch } from "@/lib/triggers/webhook-gate";
import { resolveRunInput } from "@/lib/workflow";
import { assertRunsLeft, takeWebhookRequest } from "../quotas/enforce-quotas";
import { loadWorkspaceQuota, type WorkspaceQuota } from "../quotas/workspace-quota";
import { sensitiveHeaders, verifySignature } from "../../webhooks/signatures";
import { takeToken } from "../../webhooks/token-bucket";
import { startDirectly } from "./start-webhook-run";
import { webhookEntry, type WebhookEntry } from "./webhook-cache";
import {
  deliveryKeyOf,
  errorAnswer,
  quotaRefusal,
  recordDelivery,
  STALE,
  type DeliveryStatus,
  type IncomingWebhook,
  type WebhookAnswer,
  type WebhookDeps,
} from "./webhook-delivery";
import { insertIntoInbox, type DeliveryRequest } from "./webhook-inbox";
import { wakeWebhookAdmitter } from "./webhook-admitter";
import { deepJsonRefusal } from "@/lib/json-depth";
import { describePath, storableCopy, unstorableText } from "@/lib/storable-text";

const BODY_PREVIEW_BYTES = 4096;

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
    return errorAnswer(404, "not_found", "No webhook is configured at this path");
  let { entry, fresh } = await webhookEntry(deps.db, deps.keys, req.path);
  for (;;) {
    if (!entry) return errorAnswer(404, "not_found", "No webhook is configured at this path");
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
    return fresh ? errorAnswer(500, "internal", "This webhook's configuration is invalid") : STALE;
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
          {
            ...errorAnswer(status, code, reason, details === undefined ? {} : { details }),
            headers,
          },
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
