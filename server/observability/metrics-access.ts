import "server-only";
import { BlockList, isIP } from "node:net";
import { safeEqual } from "@/lib/server-only/safe-equal";

/** Who may scrape /api/metrics (SLUICE_METRICS_TOKEN, SLUICE_METRICS_ALLOW). */
export interface MetricsAccess {
  token?: string;
  allow?: readonly string[];
}

export type AccessDecision =
  { ok: true } | { ok: false; status: 404 | 401 | 403; code: string; message: string };

/** `10.0.0.0/8`, `::1` … as a BlockList (node:net matches IPv4-mapped IPv6 too). */
function allowList(items: readonly string[]): BlockList {
  const list = new BlockList();
  for (const item of items) {
    const [addr, prefix] = item.split("/");
    const type = isIP(addr!) === 6 ? "ipv6" : "ipv4";
    if (prefix === undefined) list.addAddress(addr!, type);
    else list.addSubnet(addr!, Number(prefix), type);
  }
  return list;
}

/**
 * Off (404, as if there were no endpoint) unless a token or an address list is configured; with
 * both, a scrape needs both. The token is compared in constant time.
 */
export function decideMetricsAccess(
  access: MetricsAccess,
  request: { authorization: string | null; address: string | null },
): AccessDecision {
  const allow = access.allow?.length ? access.allow : undefined;
  if (!access.token && !allow)
    return {
      ok: false,
      status: 404,
      code: "not_found",
      message: "Metrics are off: set SLUICE_METRICS_TOKEN or SLUICE_METRICS_ALLOW",
    };
  if (allow) {
    const address = request.address;
    const family = address ? isIP(address) : 0;
    if (!address || !family || !allowList(allow).check(address, family === 6 ? "ipv6" : "ipv4"))
      return {
        ok: false,
        status: 403,
        code: "forbidden",
        message: "This address may not read metrics (SLUICE_METRICS_ALLOW)",
      };
  }
  if (access.token) {
    const m = /^Bearer\s+(\S+)\s*$/i.exec(request.authorization ?? "");
    if (!m)
      return {
        ok: false,
        status: 401,
        code: "unauthorized",
        message: "Send the metrics token as `Authorization: Bearer <token>`",
      };
    if (!safeEqual(m[1]!, access.token))
      return { ok: false, status: 401, code: "unauthorized", message: "Wrong metrics token" };
  }
  return { ok: true };
}
