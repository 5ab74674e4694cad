import "server-only";
import { isIP } from "node:net";
import { env } from "@/env";
import type { RequestClient } from "../services/context";

type HeaderSource = Headers | Record<string, string | string[] | undefined>;

function header(source: HeaderSource, name: string): string | null {
  if (source instanceof Headers) return source.get(name);
  const v = source[name] ?? source[name.toLowerCase()];
  return Array.isArray(v) ? v.join(",") : (v ?? null);
}

const MAX_USER_AGENT = 512;

/**
 * Who sent a request: the client address and user agent, for the auth throttle and audit rows.
 * The one place that reads X-Forwarded-For. Next's own server sets it to the socket address when
 * the client sent none; each trusted proxy (SLUICE_TRUSTED_PROXIES) appends the address it saw,
 * so the client is the entry that many places from the right (the rightmost without a proxy).
 * Entries left of that are written by the client and never trusted.
 */
export function requestClient(
  headers: HeaderSource,
  trustedProxies: number = env.SLUICE_TRUSTED_PROXIES,
): RequestClient {
  const hops = (header(headers, "x-forwarded-for") ?? "")
    .split(",")
    .map((s) => s.trim())
    .filter(Boolean);
  const pick = hops[Math.max(0, hops.length - Math.max(1, trustedProxies))];
  const ua = header(headers, "user-agent")?.trim();
  return {
    address: pick ? normalizeAddress(pick) : null,
    userAgent: ua ? ua.slice(0, MAX_USER_AGENT) : null,
  };
}

/** `::ffff:1.2.3.4` → `1.2.3.4`, `[::1]:443` → `::1`, `1.2.3.4:80` → `1.2.3.4`; junk → null. */
export function normalizeAddress(raw: string): string | null {
  let s = raw.trim();
  const bracketed = /^\[([^\]]+)\](?::\d+)?$/.exec(s);
  if (bracketed) s = bracketed[1]!;
  else if (/^\d{1,3}(\.\d{1,3}){3}:\d+$/.test(s)) s = s.slice(0, s.lastIndexOf(":"));
  if (s.toLowerCase().startsWith("::ffff:") && isIP(s.slice(7)) === 4) s = s.slice(7);
  return isIP(s) ? s.toLowerCase() : null;
}
