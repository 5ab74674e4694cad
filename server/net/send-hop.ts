import "server-only";
import http from "node:http";
import https from "node:https";
import type { LookupFunction } from "node:net";
import type { Readable } from "node:stream";
import zlib from "node:zlib";
import { parseIp } from "@/lib/net/ip";
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

/** Sends one request to one pinned address; reads the body unless it is a redirect to follow. */
export function sendOnce(
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
