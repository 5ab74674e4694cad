import "server-only";
import type { AddressClass } from "@/lib/net/ip";

/** The one error outbound HTTP throws (safeFetch, resolveOutboundHost), and how failures map to it. */

export type SafeFetchErrorCode =
  | "INVALID_URL"
  | "INVALID_REQUEST"
  | "BLOCKED_ADDRESS"
  | "DOMAIN_NOT_ALLOWED"
  | "DNS_NOT_FOUND"
  | "DNS_FAILED"
  | "CONNECTION_FAILED"
  | "TLS"
  | "PROTOCOL"
  | "TIMEOUT"
  | "ABORTED"
  | "TOO_MANY_REDIRECTS"
  | "RESPONSE_TOO_LARGE";

/** Codes worth retrying: the same request may well succeed a little later. */
const RETRYABLE: ReadonlySet<SafeFetchErrorCode> = new Set([
  "DNS_FAILED",
  "CONNECTION_FAILED",
  "PROTOCOL",
  "TIMEOUT",
]);

export class SafeFetchError extends Error {
  readonly retryable: boolean;
  constructor(
    readonly code: SafeFetchErrorCode,
    message: string,
    readonly info: {
      url?: string;
      host?: string;
      address?: string;
      addressClass?: AddressClass;
      cause?: unknown;
    } = {},
  ) {
    super(message, info.cause === undefined ? undefined : { cause: info.cause });
    this.name = "SafeFetchError";
    this.retryable = RETRYABLE.has(code);
  }
}

function formatBytes(n: number): string {
  if (n >= 1024 * 1024 && n % (1024 * 1024) === 0) return `${n / (1024 * 1024)} MiB`;
  if (n >= 1024 && n % 1024 === 0) return `${n / 1024} KiB`;
  return `${n} bytes`;
}

export function abortable<T>(promise: Promise<T>, signal?: AbortSignal): Promise<T> {
  if (!signal) return promise;
  if (signal.aborted) return Promise.reject(abortError(signal));
  return new Promise<T>((resolve, reject) => {
    const onAbort = () => reject(abortError(signal));
    signal.addEventListener("abort", onAbort, { once: true });
    promise.then(
      (v) => {
        signal.removeEventListener("abort", onAbort);
        resolve(v);
      },
      (e: unknown) => {
        signal.removeEventListener("abort", onAbort);
        reject(e instanceof Error ? e : new Error(String(e)));
      },
    );
  });
}

export const TIMEOUT_REASON = "sluice-safe-fetch-timeout";

export function abortError(signal: AbortSignal, timeoutMs?: number, url?: string): SafeFetchError {
  const reason: unknown = signal.reason;
  if (reason instanceof SafeFetchError) return reason;
  if (reason === TIMEOUT_REASON || (reason instanceof Error && reason.name === "TimeoutError")) {
    return new SafeFetchError(
      "TIMEOUT",
      timeoutMs ? `Request timed out after ${timeoutMs} ms` : "Request timed out",
      { url },
    );
  }
  return new SafeFetchError("ABORTED", "Request was cancelled", { url, cause: reason });
}

export function classifyNodeError(e: unknown, url: string): SafeFetchError {
  if (e instanceof SafeFetchError) return e;
  const err = e as NodeJS.ErrnoException;
  const code = err.code ?? "";
  if (
    /^(ERR_TLS|ERR_SSL|CERT_|UNABLE_TO|DEPTH_ZERO|SELF_SIGNED|ERR_OSSL|HOSTNAME_MISMATCH)/.test(
      code,
    ) ||
    code === "EPROTO"
  ) {
    return new SafeFetchError("TLS", `TLS error talking to ${url}: ${err.message}`, {
      url,
      cause: e,
    });
  }
  if (
    code.startsWith("HPE_") ||
    code === "ERR_STREAM_PREMATURE_CLOSE" ||
    code === "Z_DATA_ERROR" ||
    code === "Z_BUF_ERROR"
  ) {
    return new SafeFetchError("PROTOCOL", `Malformed response from ${url}: ${err.message}`, {
      url,
      cause: e,
    });
  }
  if (
    code === "ERR_INVALID_CHAR" ||
    code === "ERR_INVALID_HTTP_TOKEN" ||
    code === "ERR_HTTP_INVALID_HEADER_VALUE" ||
    code === "ERR_UNESCAPED_CHARACTERS"
  ) {
    return new SafeFetchError("INVALID_REQUEST", `Invalid request: ${err.message}`, {
      url,
      cause: e,
    });
  }
  return new SafeFetchError(
    "CONNECTION_FAILED",
    `Could not reach ${url}: ${err.message || code || "connection failed"}`,
    { url, cause: e },
  );
}

const CONNECT_FAILURES = new Set([
  "ECONNREFUSED",
  "EHOSTUNREACH",
  "ENETUNREACH",
  "EADDRNOTAVAIL",
  "EAFNOSUPPORT",
]);

export function isConnectFailure(e: unknown): boolean {
  if (!(e instanceof SafeFetchError) || e.code !== "CONNECTION_FAILED") return false;
  const code = (e.info.cause as NodeJS.ErrnoException | undefined)?.code;
  return code !== undefined && CONNECT_FAILURES.has(code);
}

export function tooLarge(maxBytes: number, url: string): SafeFetchError {
  return new SafeFetchError(
    "RESPONSE_TOO_LARGE",
    `Response body exceeds the ${formatBytes(maxBytes)} limit`,
    { url },
  );
}
