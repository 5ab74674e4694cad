import type { FailureClass } from "@/lib/workflow/status";
import type { LlmError } from "@/server/integrations/openai-compatible";
import { parseRetryAfter } from "@/lib/net/retry-after";
import type { SafeResponse } from "@/server/net/safe-fetch";
import { SafeFetchError, type SafeFetchErrorCode } from "@/server/net/safe-fetch-error";
import { StepFailure, type ActionContext } from "./types";

/**
 * Failure classification shared by the side-effect handlers (SPEC §5): refusals and bad config
 * are `user` errors (never retried); network trouble, timeouts, 429 and 5xx are `operational`.
 */

const FETCH_FAILURE_CLASS: Record<SafeFetchErrorCode, FailureClass> = {
  INVALID_URL: "user",
  INVALID_REQUEST: "user",
  BLOCKED_ADDRESS: "user",
  DOMAIN_NOT_ALLOWED: "user",
  DNS_NOT_FOUND: "user",
  TLS: "user",
  TOO_MANY_REDIRECTS: "user",
  RESPONSE_TOO_LARGE: "user",
  DNS_FAILED: "operational",
  CONNECTION_FAILED: "operational",
  PROTOCOL: "operational",
  TIMEOUT: "operational",
  // Cancellation or the step deadline: the engine decides what happens next.
  ABORTED: "operational",
};

export function failureFromFetch(e: SafeFetchError, prefix?: string): StepFailure {
  const details: Record<string, unknown> = { code: e.code };
  if (e.info.url) details.url = e.info.url;
  if (e.info.host) details.host = e.info.host;
  if (e.info.address) details.address = e.info.address;
  if (e.info.addressClass) details.addressClass = e.info.addressClass;
  return new StepFailure(
    prefix ? `${prefix}: ${e.message}` : e.message,
    FETCH_FAILURE_CLASS[e.code],
    details,
  );
}

export const userFailure = (message: string, details: Record<string, unknown> = {}) =>
  new StepFailure(message, "user", details);

/** Unknown errors are bugs: keep them classified as internal, never retried. */
export function asStepFailure(e: unknown, prefix?: string): StepFailure {
  if (e instanceof StepFailure) return e;
  if (e instanceof SafeFetchError) return failureFromFetch(e, prefix);
  const message = e instanceof Error ? e.message : String(e);
  return new StepFailure(prefix ? `${prefix}: ${message}` : message, "internal", {
    error: e instanceof Error ? e.name : typeof e,
  });
}

/** Milliseconds left before the step deadline, capped by the handler's own limit. */
export function remainingMs(ctx: Pick<ActionContext, "deadline">, limitMs: number): number {
  return Math.max(1, Math.min(limitMs, ctx.deadline - Date.now()));
}

/** The outbound policy handlers pass to safe-fetch and the integrations. */
export function outboundPolicy(
  ctx: Pick<ActionContext, "policy">,
  allowedDomains?: readonly string[],
) {
  return { allowedPrivateHosts: ctx.policy.allowedPrivateHosts, allowedDomains };
}

/** LLM client errors: rate limits and server/network trouble are operational, the rest user errors. */
export function failureFromLlm(e: LlmError): StepFailure {
  return new StepFailure(
    e.message,
    e.retryable ? "operational" : "user",
    { kind: e.kind, ...(e.extra.status ? { status: e.extra.status } : {}) },
    e.extra.retryAfterMs,
  );
}

export function noLlmFailure(): StepFailure {
  return userFailure(
    "No LLM endpoint is configured for this workspace. A workspace admin can set one under Settings → Integrations.",
    { integration: "llm" },
  );
}

/** Characters of a failing response body quoted in the error. */
export const EXCERPT_CHARS = 500;

/**
 * A failure for an HTTP error status: 429, 408 and 5xx are operational (with Retry-After when
 * sent), other 4xx are user errors. The message quotes the status and the start of the body.
 */
export function failureFromStatus(what: string, res: SafeResponse): StepFailure {
  const excerpt = res.text().slice(0, EXCERPT_CHARS);
  const message = `${what} answered ${res.status}${res.statusText ? ` ${res.statusText}` : ""}${excerpt ? `: ${excerpt}` : ""}`;
  const details = { status: res.status, url: res.url, bodyExcerpt: excerpt, headers: res.headers };
  if (res.status === 429 || res.status === 408 || res.status >= 500) {
    return new StepFailure(
      message,
      "operational",
      details,
      parseRetryAfter(res.headers["retry-after"]),
    );
  }
  return new StepFailure(message, "user", details);
}
