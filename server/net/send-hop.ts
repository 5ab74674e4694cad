import "server-only";
import http from "node:http";
import https from "node:https";
import type { LookupFunction } from "node:net";
import type { Readable } from "node:stream";
import zlib from "node:zlib";
import { parseIp } from "@/lib/net/ip";
import { keepAliveAgent } from "./keep-alive-agents";
import { bareHost, type ResolvedAddress } from "./outbound-host";
import { abortError, classifyNodeError, SafeFetchError, tooLarge } from "./safe-fetch-error";

/** One HTTP exchange of safeFetch: one request to one pinned address, the body capped as it streams. */

function headerRecord(raw: http.IncomingHttpHeaders): Record<string, string> {
  const out: Record<string, string> = {};
  for (const [k, v] of Object.entries(raw)) {
    if (v === undefined) continue;
    out[k] = Array.isArray(v) ? v.join(", ") : v;
  }
  return out;
}

export interface Hop {
  status: number;
  statusText: string;
  headers: Record<string, string>;
  body: Buffer;
  partial: boolean;
  location?: string;
}

const IDEMPOTENT_METHODS = new Set(["GET", "HEAD", "OPTIONS", "TRACE", "PUT", "DELETE"]);

/**
 * A pooled socket the server closed while it sat idle fails the next request on it before any
 * response (ECONNRESET / EPIPE): such a request is sent again once on a fresh connection.
 */
class StaleSocketError extends Error {}

/**
 * Sends one request to one pinned address; reads the body unless it is a redirect to follow.
 * Requests that may be sent twice (idempotent methods, or an Idempotency-Key the receiver
 * dedupes by) reuse a keep-alive connection to the same pinned address; the rest open their own.
 */
export async function sendOnce(
  url: URL,
  pinned: ResolvedAddress,
  method: string,
  headers: Record<string, string>,
  body: Buffer | undefined,
  signal: AbortSignal,
  maxBytes: number,
  followRedirect: boolean,
  stopWhen: ((bodySoFar: Buffer) => boolean) | undefined,
): Promise<Hop> {
  const host = bareHost(url.hostname);
  const servername = url.protocol === "https:" && !parseIp(host) ? host : undefined;
  const request: HopRequest = {
    url,
    pinned,
    method,
    headers,
    body,
    signal,
    maxBytes,
    followRedirect,
    stopWhen,
  };
  const send = (agent: http.Agent | false) => exchange(request, servername, agent);
  if (!IDEMPOTENT_METHODS.has(method) && headers["idempotency-key"] === undefined)
    return send(false);
  try {
    return await send(keepAliveAgent(url, pinned, servername));
  } catch (e) {
    if (e instanceof StaleSocketError) return send(false);
    throw e;
  }
}

/** What one hop sends, as `sendOnce` was given it. */
interface HopRequest {
  url: URL;
  pinned: ResolvedAddress;
  method: string;
  headers: Record<string, string>;
  body: Buffer | undefined;
  signal: AbortSignal;
  maxBytes: number;
  followRedirect: boolean;
  stopWhen: ((bodySoFar: Buffer) => boolean) | undefined;
}

function exchange(
  { url, pinned, method, headers, body, signal, maxBytes, followRedirect, stopWhen }: HopRequest,
  servername: string | undefined,
  agent: http.Agent | false,
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
        agent,
        lookup,
        signal,
        ...(servername ? { servername } : {}),
      });
    } catch (e) {
      fail(classifyNodeError(e, url.href));
      return;
    }
    let responded = false;
    req.on("error", (e) => {
      const code = (e as NodeJS.ErrnoException).code;
      if (
        req.reusedSocket &&
        !responded &&
        !signal.aborted &&
        (code === "ECONNRESET" || code === "EPIPE")
      ) {
        fail(new StaleSocketError(e.message));
        return;
      }
      fail(
        signal.aborted ? abortError(signal, undefined, url.href) : classifyNodeError(e, url.href),
      );
    });
    req.on("response", (res) => {
      responded = true;
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
