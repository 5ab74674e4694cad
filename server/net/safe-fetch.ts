import "server-only";
import { lookup as dnsLookup } from "node:dns/promises";
import http from "node:http";
import https from "node:https";
import type { LookupFunction } from "node:net";
import type { Readable } from "node:stream";
import zlib from "node:zlib";
import {
  ADDRESS_CLASS_LABELS,
  classifyIp,
  formatIp,
  parseIp,
  type AddressClass,
} from "@/lib/net/ip";
import {
  classifyHostName,
  compileHostAllowList,
  type HostAllowList,
} from "@/lib/net/host-allow-list";
import { hostMatches } from "@/lib/workflow/steps";

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

export interface ResolvedAddress {
  address: string;
  family: 4 | 6;
}

export type Resolver = (host: string) => Promise<ResolvedAddress[]>;

/** Where a workflow may send requests. */
export interface OutboundPolicy {
  /** The workspace's allowed private hosts (names, IPs, CIDRs). */
  allowedPrivateHosts?: readonly string[];
  /** The step's allowedDomains: when non-empty, every hop's host must match one. */
  allowedDomains?: readonly string[];
  /** DNS resolution (getaddrinfo by default). */
  resolver?: Resolver;
}

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

export const systemResolver: Resolver = async (host) => {
  const answers = await dnsLookup(host, { all: true, verbatim: true });
  return answers.map((a) => ({ address: a.address, family: a.family === 6 ? 6 : 4 }));
};

function formatBytes(n: number): string {
  if (n >= 1024 * 1024 && n % (1024 * 1024) === 0) return `${n / (1024 * 1024)} MiB`;
  if (n >= 1024 && n % 1024 === 0) return `${n / 1024} KiB`;
  return `${n} bytes`;
}

function blocked(host: string, address: string, cls: AddressClass, url?: string): SafeFetchError {
  const via = host === address ? `${address}` : `${host} (${address})`;
  return new SafeFetchError(
    "BLOCKED_ADDRESS",
    `Refused to connect to ${via}: it is ${ADDRESS_CLASS_LABELS[cls]}. Ask a workspace admin to add "${host}" to the allowed private hosts if this is intended.`,
    { url, host, address, addressClass: cls },
  );
}

/** Strips IPv6 brackets from a URL hostname. */
const bareHost = (hostname: string) =>
  hostname.startsWith("[") && hostname.endsWith("]") ? hostname.slice(1, -1) : hostname;

/**
 * Resolves a host and checks every address against the SSRF rules and the allow-list. Returns
 * the addresses to connect to (pin the first). Used by safeFetch and by the SMTP client.
 */
export async function resolveOutboundHost(
  hostname: string,
  policy: Pick<OutboundPolicy, "allowedPrivateHosts" | "resolver">,
  signal?: AbortSignal,
  url?: string,
): Promise<ResolvedAddress[]> {
  const allow = compileHostAllowList(policy.allowedPrivateHosts ?? []);
  const host = bareHost(hostname.toLowerCase()).replace(/\.$/, "");
  const literal = parseIp(host);
  if (literal) {
    const cls = classifyIp(literal);
    const address = formatIp(literal);
    if (cls !== "public" && !allow.allowsAddress(literal, cls))
      throw blocked(host, address, cls, url);
    return [{ address, family: literal.family }];
  }
  const nameMatch = allow.matchName(host);
  const nameClass = classifyHostName(host);
  if (nameClass && nameMatch !== "exact" && !(nameClass === "loopback" && nameMatch)) {
    throw blocked(host, host, nameClass, url);
  }
  let answers: ResolvedAddress[];
  try {
    answers = await abortable((policy.resolver ?? systemResolver)(host), signal);
  } catch (e) {
    if (e instanceof SafeFetchError) throw e;
    const code = (e as NodeJS.ErrnoException).code;
    if (code === "ENOTFOUND" || code === "ENODATA") {
      throw new SafeFetchError("DNS_NOT_FOUND", `Host ${host} was not found (DNS: ${code})`, {
        url,
        host,
        cause: e,
      });
    }
    throw new SafeFetchError("DNS_FAILED", `Could not resolve ${host}: ${(e as Error).message}`, {
      url,
      host,
      cause: e,
    });
  }
  if (answers.length === 0) {
    throw new SafeFetchError("DNS_NOT_FOUND", `Host ${host} has no addresses`, { url, host });
  }
  const checked: ResolvedAddress[] = [];
  for (const a of answers) {
    const ip = parseIp(a.address);
    if (!ip) throw blocked(host, a.address, "reserved", url);
    const cls = classifyIp(ip);
    const address = formatIp(ip);
    if (cls !== "public" && !addressAllowed(allow, nameMatch, ip, cls)) {
      throw blocked(host, address, cls, url);
    }
    checked.push({ address, family: ip.family });
  }
  return checked;
}

function addressAllowed(
  allow: HostAllowList,
  nameMatch: "exact" | "wildcard" | null,
  ip: NonNullable<ReturnType<typeof parseIp>>,
  cls: AddressClass,
): boolean {
  if (allow.allowsAddress(ip, cls)) return true;
  // A listed name vouches for its private addresses; metadata endpoints need an exact entry.
  return cls === "metadata" ? nameMatch === "exact" : nameMatch !== null;
}

function abortable<T>(promise: Promise<T>, signal?: AbortSignal): Promise<T> {
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

const TIMEOUT_REASON = "sluice-safe-fetch-timeout";

function abortError(signal: AbortSignal, timeoutMs?: number, url?: string): SafeFetchError {
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

function classifyNodeError(e: unknown, url: string): SafeFetchError {
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

function headerRecord(raw: http.IncomingHttpHeaders): Record<string, string> {
  const out: Record<string, string> = {};
  for (const [k, v] of Object.entries(raw)) {
    if (v === undefined) continue;
    out[k] = Array.isArray(v) ? v.join(", ") : v;
  }
  return out;
}

interface Hop {
  status: number;
  statusText: string;
  headers: Record<string, string>;
  body: Buffer;
  partial: boolean;
  location?: string;
}

/** Sends one request to one pinned address; reads the body unless it is a redirect to follow. */
function sendOnce(
  url: URL,
  pinned: ResolvedAddress,
  method: string,
  headers: Record<string, string>,
  body: Buffer | undefined,
  signal: AbortSignal,
  maxBytes: number,
  followRedirect: boolean,
  stopWhen: SafeFetchOptions["stopWhen"],
): Promise<Hop> {
  return new Promise<Hop>((resolve, reject) => {
    const host = bareHost(url.hostname);
    const lookup: LookupFunction = (_hostname, options, callback) => {
      if (options.all) callback(null, [{ address: pinned.address, family: pinned.family }]);
      else callback(null, pinned.address, pinned.family);
    };
    const mod = url.protocol === "https:" ? https : http;
    let settled = false;
    const fail = (e: unknown) => {
      if (settled) return;
      settled = true;
      reject(e);
    };
    const done = (hop: Hop) => {
      if (settled) return;
      settled = true;
      resolve(hop);
    };
    let req: http.ClientRequest;
    try {
      req = mod.request({
        protocol: url.protocol,
        hostname: host,
        port: url.port || undefined,
        path: `${url.pathname}${url.search}`,
        method,
        headers,
        agent: false,
        lookup,
        signal,
        ...(url.protocol === "https:" && !parseIp(host) ? { servername: host } : {}),
      });
    } catch (e) {
      fail(classifyNodeError(e, url.href));
      return;
    }
    req.on("error", (e) => {
      fail(
        signal.aborted ? abortError(signal, undefined, url.href) : classifyNodeError(e, url.href),
      );
    });
    req.on("response", (res) => {
      const status = res.statusCode ?? 0;
      const resHeaders = headerRecord(res.headers);
      const isRedirect = [301, 302, 303, 307, 308].includes(status) && !!res.headers.location;
      if (isRedirect && followRedirect) {
        res.resume();
        done({
          status,
          statusText: res.statusMessage ?? "",
          headers: resHeaders,
          body: Buffer.alloc(0),
          partial: false,
          location: res.headers.location,
        });
        return;
      }
      const declared = Number(res.headers["content-length"]);
      const encoding = (res.headers["content-encoding"] ?? "").toLowerCase().trim();
      if (!encoding && Number.isFinite(declared) && declared > maxBytes) {
        res.destroy();
        fail(tooLarge(maxBytes, url.href));
        return;
      }
      let stream: Readable = res;
      if (encoding === "gzip" || encoding === "x-gzip") stream = res.pipe(zlib.createGunzip());
      else if (encoding === "deflate") stream = res.pipe(zlib.createInflate());
      else if (encoding === "br") stream = res.pipe(zlib.createBrotliDecompress());
      const chunks: Buffer[] = [];
      let size = 0;
      const finish = (partial: boolean) =>
        done({
          status,
          statusText: res.statusMessage ?? "",
          headers: resHeaders,
          body: Buffer.concat(chunks, size),
          partial,
        });
      stream.on("data", (chunk: Buffer) => {
        if (settled) return;
        size += chunk.length;
        if (size > maxBytes) {
          res.destroy();
          if (stream !== res) stream.destroy();
          fail(tooLarge(maxBytes, url.href));
          return;
        }
        chunks.push(chunk);
        if (stopWhen && stopWhen(Buffer.concat(chunks, size))) {
          finish(true);
          res.destroy();
          if (stream !== res) stream.destroy();
        }
      });
      stream.on("end", () => finish(false));
      stream.on("error", (e) =>
        fail(
          signal.aborted ? abortError(signal, undefined, url.href) : classifyNodeError(e, url.href),
        ),
      );
      res.on("close", () => {
        if (res.complete || settled) return;
        fail(
          signal.aborted
            ? abortError(signal, undefined, url.href)
            : new SafeFetchError(
                "CONNECTION_FAILED",
                `Connection to ${url.href} closed before the response ended`,
                { url: url.href },
              ),
        );
      });
    });
    req.end(body);
  });
}

const CONNECT_FAILURES = new Set([
  "ECONNREFUSED",
  "EHOSTUNREACH",
  "ENETUNREACH",
  "EADDRNOTAVAIL",
  "EAFNOSUPPORT",
]);

function isConnectFailure(e: unknown): boolean {
  if (!(e instanceof SafeFetchError) || e.code !== "CONNECTION_FAILED") return false;
  const code = (e.info.cause as NodeJS.ErrnoException | undefined)?.code;
  return code !== undefined && CONNECT_FAILURES.has(code);
}

function tooLarge(maxBytes: number, url: string): SafeFetchError {
  return new SafeFetchError(
    "RESPONSE_TOO_LARGE",
    `Response body exceeds the ${formatBytes(maxBytes)} limit`,
    { url },
  );
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
