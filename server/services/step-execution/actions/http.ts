import type { StepConfig } from "@/lib/workflow/steps";
import { safeFetch, type SafeResponse } from "@/server/net/safe-fetch";
import { SafeFetchError } from "@/server/net/safe-fetch-error";
import { addTraceparent } from "@/server/observability/trace-ids";
import {
  failureFromFetch,
  failureFromStatus,
  outboundPolicy,
  remainingMs,
  userFailure,
} from "./failures";
import type { ActionHandler } from "./types";

export type HttpStepConfig = StepConfig<"http">;

const isJsonType = (ct: string) => /^application\/(.+\+)?json\b/i.test(ct) || /\+json\b/i.test(ct);
const isTextType = (ct: string) =>
  /^text\//i.test(ct) ||
  /^application\/(.+\+)?(xml|javascript|x-www-form-urlencoded|graphql|yaml|x-yaml|x-ndjson)\b/i.test(
    ct,
  );

function utf8OrNull(body: Buffer): string | null {
  try {
    return new TextDecoder("utf-8", { fatal: true }).decode(body);
  } catch {
    return null;
  }
}

/**
 * The response body: parsed JSON for JSON content types, text for textual ones (and for untyped
 * bodies that are valid UTF-8), base64 otherwise (meta.bodyEncoding says so).
 */
function decodeBody(res: SafeResponse): { body: unknown; meta: Record<string, unknown> } {
  const ct = res.headers["content-type"] ?? "";
  if (res.body.length === 0) return { body: isJsonType(ct) ? null : "", meta: {} };
  if (isJsonType(ct)) {
    const text = res.text();
    try {
      return { body: JSON.parse(text) as unknown, meta: {} };
    } catch (e) {
      return { body: text, meta: { bodyParseError: `Invalid JSON: ${(e as Error).message}` } };
    }
  }
  if (isTextType(ct)) return { body: res.text(), meta: {} };
  const text = ct === "" ? utf8OrNull(res.body) : null;
  if (text !== null) return { body: text, meta: {} };
  return { body: res.body.toString("base64"), meta: { bodyEncoding: "base64" } };
}

function encodeBody(body: unknown, headers: Record<string, string>): string | undefined {
  if (body === undefined) return undefined;
  const ct = headers["content-type"];
  if (typeof body === "string") {
    headers["content-type"] ??= "text/plain; charset=utf-8";
    return body;
  }
  if (
    ct &&
    /^application\/x-www-form-urlencoded\b/i.test(ct) &&
    body &&
    typeof body === "object" &&
    !Array.isArray(body)
  ) {
    const form = new URLSearchParams();
    for (const [k, v] of Object.entries(body as Record<string, unknown>)) {
      form.append(k, typeof v === "string" ? v : JSON.stringify(v));
    }
    return form.toString();
  }
  headers["content-type"] ??= "application/json";
  return JSON.stringify(body);
}

/**
 * The `http` step: one request through the SSRF guard (safe-fetch), with the config already
 * resolved by the engine. Sends `Idempotency-Key: <ctx.idempotencyKey>` unless the config sets
 * one, so a retried or rerun attempt can be deduplicated by the receiver.
 *
 * Classification: 2xx/3xx complete the step; 429 (with Retry-After), 408 and 5xx are operational
 * (retried per the step's retry policy); other 4xx are user errors quoting the status and the
 * start of the body; SSRF and allowedDomains refusals are user errors naming the address class.
 */
export const httpHandler: ActionHandler<HttpStepConfig> = async (ctx) => {
  const config = ctx.config;
  let url: URL;
  try {
    url = new URL(config.url);
  } catch {
    throw userFailure(`"${config.url}" is not an absolute URL`, { field: "url" });
  }
  for (const [k, v] of Object.entries(config.query ?? {})) url.searchParams.append(k, String(v));

  const headers: Record<string, string> = {};
  for (const [k, v] of Object.entries(config.headers ?? {})) headers[k.toLowerCase()] = v;
  headers["idempotency-key"] ??= ctx.idempotencyKey;
  addTraceparent(headers, ctx);
  const method = config.method ?? "GET";
  const body = method === "GET" || method === "HEAD" ? undefined : encodeBody(config.body, headers);

  const started = Date.now();
  let res: SafeResponse;
  try {
    res = await safeFetch(url, {
      ...outboundPolicy(ctx, config.allowedDomains),
      method,
      headers,
      body,
      signal: ctx.signal,
      timeoutMs: remainingMs(ctx, config.timeoutMs),
      maxResponseBytes: config.maxResponseBytes,
    });
  } catch (e) {
    if (e instanceof SafeFetchError)
      throw failureFromFetch(e, `${method} ${url.origin}${url.pathname}`);
    throw e;
  }
  const durationMs = Date.now() - started;
  const { body: responseBody, meta: bodyMeta } = decodeBody(res);
  const meta = {
    url: res.url,
    method,
    durationMs,
    responseBytes: res.body.length,
    ...(res.redirects.length ? { redirects: res.redirects } : {}),
    ...bodyMeta,
  };

  if (res.status >= 400) throw failureFromStatus(`${method} ${res.url}`, res);
  return { data: { status: res.status, headers: res.headers, body: responseBody }, meta };
};
