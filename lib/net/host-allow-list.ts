/**
 * Host names and the workspace's allowed-private-hosts list (host names, `*.suffix` wildcards,
 * addresses and CIDR ranges), on top of the IP classification in ip.ts.
 */
import {
  type AddressClass,
  type Cidr,
  METADATA_HOST_NAMES,
  V4_MAPPED,
  type ParsedIp,
  cidrContains,
  embeddedIpv4,
  parseCidr,
  parseIp,
} from "./ip";

const HOST_LABEL = /^[a-z0-9_]([a-z0-9_-]{0,61}[a-z0-9_])?$/;

/** A DNS host name (lower case), optionally with a leading `*.` wildcard. */
export function isHostName(input: string, allowWildcard = false): boolean {
  let text = input;
  if (allowWildcard && text.startsWith("*.")) text = text.slice(2);
  if (text.length === 0 || text.length > 253) return false;
  const labels = (text.endsWith(".") ? text.slice(0, -1) : text).split(".");
  return labels.every((l) => HOST_LABEL.test(l)) && !parseIp(text);
}

/** Whether a host name is a metadata name or `localhost` / `*.localhost` (RFC 6761). */
export function classifyHostName(host: string): AddressClass | null {
  const h = host.toLowerCase().replace(/\.$/, "");
  if (METADATA_HOST_NAMES.includes(h)) return "metadata";
  if (h === "localhost" || h.endsWith(".localhost")) return "loopback";
  return null;
}

/**
 * One entry of a workspace's allowed private hosts: a host name (`build.internal`, or
 * `*.corp.example` for subdomains), an IP, or a CIDR. Returns a problem message or null.
 */
export function allowedHostEntryProblem(entry: string): string | null {
  if (entry.trim() !== entry || entry === "") return "Remove surrounding spaces.";
  if (entry.includes("/")) {
    return parseCidr(entry) ? null : `"${entry}" is not a valid CIDR range (e.g. 10.0.0.0/8).`;
  }
  if (parseIp(entry)) return null;
  if (isHostName(entry.toLowerCase(), true) && entry === entry.toLowerCase()) return null;
  return `"${entry}" is not a host name, IP address or CIDR range.`;
}

export interface HostAllowList {
  /** How a host name matches the name entries: exactly, through a `*.` wildcard, or not at all. */
  matchName(host: string): "exact" | "wildcard" | null;
  /**
   * Whether this resolved address is allowed although not public (IP/CIDR entries). Metadata
   * endpoints are only opened by an exact entry (the address itself): a broad range such as
   * 169.254.0.0/16 does not open them.
   */
  allowsAddress(ip: ParsedIp, addressClass: AddressClass): boolean;
}

/** `::ffff:10.0.0.0/104` is the IPv4 range 10.0.0.0/8 written in IPv6: compare it as IPv4. */
function mappedRangeAsIpv4(range: Cidr): Cidr {
  if (
    range.family !== 6 ||
    range.prefix < 96 ||
    !cidrContains(V4_MAPPED, { family: 6, bytes: range.bytes })
  ) {
    return range;
  }
  return { family: 4, bytes: range.bytes.slice(12, 16), prefix: range.prefix - 96 };
}

export function compileHostAllowList(entries: readonly string[]): HostAllowList {
  const names: string[] = [];
  const ranges: Cidr[] = [];
  for (const entry of entries) {
    const e = entry.trim().toLowerCase();
    if (!e) continue;
    const range = parseCidr(e);
    if (range) ranges.push(mappedRangeAsIpv4(range));
    else names.push(e.replace(/\.$/, ""));
  }
  return {
    matchName(host) {
      const h = host.toLowerCase().replace(/\.$/, "");
      if (names.includes(h)) return "exact";
      return names.some((n) => n.startsWith("*.") && h.endsWith(n.slice(1))) ? "wildcard" : null;
    },
    allowsAddress(ip, addressClass) {
      const inner = embeddedIpv4(ip);
      const candidates = inner ? [ip, inner] : [ip];
      return ranges.some((r) =>
        candidates.some(
          (c) =>
            cidrContains(r, c) &&
            (addressClass !== "metadata" || r.prefix === (r.family === 4 ? 32 : 128)),
        ),
      );
    },
  };
}
