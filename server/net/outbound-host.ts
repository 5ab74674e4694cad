import "server-only";
import { lookup as dnsLookup } from "node:dns/promises";
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
import { abortable, SafeFetchError } from "./safe-fetch-error";

/**
 * The SSRF check (SPEC §10) on its own: a host is resolved once and every address classified;
 * the caller pins the connection to the checked address. Shared by safeFetch, git and SMTP.
 */

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

export const systemResolver: Resolver = async (host) => {
  const answers = await dnsLookup(host, { all: true, verbatim: true });
  return answers.map((a) => ({ address: a.address, family: a.family === 6 ? 6 : 4 }));
};

function blocked(host: string, address: string, cls: AddressClass, url?: string): SafeFetchError {
  const via = host === address ? `${address}` : `${host} (${address})`;
  return new SafeFetchError(
    "BLOCKED_ADDRESS",
    `Refused to connect to ${via}: it is ${ADDRESS_CLASS_LABELS[cls]}. Ask a workspace admin to add "${host}" to the allowed private hosts if this is intended.`,
    { url, host, address, addressClass: cls },
  );
}

/** Strips IPv6 brackets from a URL hostname. */
export const bareHost = (hostname: string) =>
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
