import "server-only";
import { hostMatches } from "@/lib/workflow/steps";
import { bareHost, resolveOutboundHost, type OutboundPolicy } from "./outbound-host";
import { abortError, isConnectFailure, SafeFetchError, TIMEOUT_REASON } from "./safe-fetch-error";
import { sendOnce, type Hop } from "./send-hop";

/**
 * Outbound HTTP for everything a workflow can point somewhere (http, llm, agent/MCP, notify).
 *
 * SSRF guard (SPEC §10): the host is resolved once, every resolved address is classified
 * (loopback, private, CGNAT, link-local, metadata, unspecified, multicast, reserved — IPv4-mapped
 * and other IPv4-embedding IPv6 forms by the address they carry) and the request is refused
 * unless all of them are public or the workspace allow-lists the host. The connection is then
 * pinned to the checked address through the socket's `lookup`, so a second DNS answer can never
 * redirect it (no rebinding window). Redirects are followed by hand (max 5), each hop checked
 * again, including the step's `allowedDomains`. One deadline (timeout and the caller's signal)
 * covers DNS, connect, redirects and the body; bodies are capped while they stream in.
 */

export interface SafeFetchOptions extends OutboundPolicy {
  method?: string;
  headers?: Record<string, string>;
  body?: string | Uint8Array;
  /** Whole-request deadline in ms (DNS, connect, redirects, body). Default 30 s. */
  timeoutMs?: number;
  signal?: AbortSignal;
  /** Default 10 MiB. Measured after decompression. */
  maxResponseBytes?: number;
  /** Default 5; 0 returns the redirect response itself. */
  maxRedirects?: number;
  /**
   * Stops reading the body as soon as this returns true (for streams that stay open after the
   * interesting part, e.g. an MCP server's event stream). The response is then `partial`.
   */
  stopWhen?: (bodySoFar: Buffer) => boolean;
}

export interface SafeResponse {
  status: number;
  statusText: string;
  /** Lower-case names; repeated headers joined with ", ". */
  headers: Record<string, string>;
  /** The final URL after redirects. */
  url: string;
  /** Every URL redirected to, in order. */
  redirects: string[];
  /** The address the final request connected to. */
  address: string;
  body: Buffer;
  /** True when stopWhen ended the read early. */
  partial: boolean;
  text(): string;
}

export const DEFAULT_TIMEOUT_MS = 30_000;
export const DEFAULT_MAX_RESPONSE_BYTES = 10 * 1024 * 1024;
export const MAX_REDIRECTS = 5;
const USER_AGENT = "Sluice/0.1 (+workflow automation)";
const SENSITIVE_HEADERS = ["authorization", "cookie", "proxy-authorization"];

function checkUrl(raw: string | URL, allowedDomains: readonly string[] | undefined): URL {
  let url: URL;
  try {
    url = new URL(String(raw));
  } catch {
    throw new SafeFetchError("INVALID_URL", `"${String(raw)}" is not an absolute URL`);
  }
  if (url.protocol !== "http:" && url.protocol !== "https:") {
    throw new SafeFetchError(
      "INVALID_URL",
      `URL scheme "${url.protocol}" is not allowed; use http or https`,
      { url: url.href },
    );
  }
  if (url.username || url.password) {
    throw new SafeFetchError(
      "INVALID_URL",
      "Credentials in URLs are not allowed; send them in a header",
      { url: `${url.protocol}//${url.host}${url.pathname}` },
    );
  }
  const host = bareHost(url.hostname);
  if (
    allowedDomains &&
    allowedDomains.length > 0 &&
    !allowedDomains.some((d) => hostMatches(host, d))
  ) {
    throw new SafeFetchError(
      "DOMAIN_NOT_ALLOWED",
      `Host ${host} is not in allowedDomains (${allowedDomains.join(", ")})`,
      { url: url.href, host },
    );
  }
  return url;
}

/** Sends an HTTP request through the SSRF guard. Throws SafeFetchError for every refusal and failure. */
export async function safeFetch(
  input: string | URL,
  options: SafeFetchOptions = {},
): Promise<SafeResponse> {
  const timeoutMs = options.timeoutMs ?? DEFAULT_TIMEOUT_MS;
  const maxBytes = options.maxResponseBytes ?? DEFAULT_MAX_RESPONSE_BYTES;
  const maxRedirects = options.maxRedirects ?? MAX_REDIRECTS;
  const timeout = new AbortController();
  const timer = setTimeout(() => timeout.abort(TIMEOUT_REASON), timeoutMs);
  const signal = options.signal
    ? AbortSignal.any([options.signal, timeout.signal])
    : timeout.signal;

  let method = (options.method ?? "GET").toUpperCase();
  let body = options.body === undefined ? undefined : Buffer.from(options.body);
  const headers: Record<string, string> = {};
  for (const [k, v] of Object.entries(options.headers ?? {})) headers[k.toLowerCase()] = v;
  headers["user-agent"] ??= USER_AGENT;

  const redirects: string[] = [];
  let url = checkUrl(input, options.allowedDomains);
  try {
    for (;;) {
      if (signal.aborted) throw abortError(signal, timeoutMs, url.href);
      const addresses = await resolveOutboundHost(url.hostname, options, signal, url.href);
      const hopHeaders = { ...headers };
      if (body !== undefined) hopHeaders["content-length"] = String(body.length);
      else delete hopHeaders["content-length"];
      let hop: Hop | undefined;
      let pinned = addresses[0]!;
      // Every address was checked; on a refused connect try the next one (e.g. ::1, then 127.0.0.1).
      for (let i = 0; !hop; i++) {
        pinned = addresses[i]!;
        try {
          hop = await sendOnce(
            url,
            pinned,
            method,
            hopHeaders,
            body,
            signal,
            maxBytes,
            maxRedirects > 0,
            options.stopWhen,
          );
        } catch (e) {
          if (i < addresses.length - 1 && !signal.aborted && isConnectFailure(e)) continue;
          throw e instanceof SafeFetchError && (e.code === "ABORTED" || e.code === "TIMEOUT")
            ? abortError(signal, timeoutMs, url.href)
            : e;
        }
      }
      if (hop.location !== undefined) {
        if (redirects.length >= maxRedirects) {
          throw new SafeFetchError(
            "TOO_MANY_REDIRECTS",
            `Stopped after ${maxRedirects} redirects (last: ${url.href})`,
            { url: url.href },
          );
        }
        let next: URL;
        try {
          next = new URL(hop.location, url);
        } catch {
          throw new SafeFetchError("PROTOCOL", `Invalid redirect location "${hop.location}"`, {
            url: url.href,
          });
        }
        next = checkUrl(next, options.allowedDomains);
        if (next.origin !== url.origin) for (const h of SENSITIVE_HEADERS) delete headers[h];
        // 303 always, and 301/302 after a POST, continue as GET without a body (as browsers do).
        if (
          hop.status === 303 ||
          ((hop.status === 301 || hop.status === 302) && method === "POST")
        ) {
          if (method !== "HEAD") method = "GET";
          body = undefined;
          delete headers["content-type"];
        }
        redirects.push(next.href);
        url = next;
        continue;
      }
      return {
        status: hop.status,
        statusText: hop.statusText,
        headers: hop.headers,
        url: url.href,
        redirects,
        address: pinned.address,
        body: hop.body,
        partial: hop.partial,
        text: () => hop.body.toString("utf8"),
      };
    }
  } catch (e) {
    if (
      signal.aborted &&
      !(e instanceof SafeFetchError && e.code !== "ABORTED" && e.code !== "TIMEOUT")
    ) {
      throw abortError(signal, timeoutMs, url.href);
    }
    throw e;
  } finally {
    clearTimeout(timer);
  }
}
