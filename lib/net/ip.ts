/**
 * IP address parsing and classification for the SSRF guard (server/net) and for validating the
 * workspace's allowed-private-hosts list (lib/schemas). Pure and isomorphic: no node:net.
 *
 * Addresses are normalised before they are classified: IPv4 in the odd spellings URL parsers
 * accept (`2130706433`, `0x7f.1`, `127.1`, `0177.0.0.1`) becomes dotted quads, and IPv6 forms that
 * embed an IPv4 address (mapped `::ffff:a.b.c.d`, compatible `::a.b.c.d`, NAT64 `64:ff9b::/96`,
 * 6to4 `2002::/16`) are classified by the IPv4 address they carry.
 */

export type IpFamily = 4 | 6;

export interface ParsedIp {
  family: IpFamily;
  /** 4 or 16 bytes, network order. */
  bytes: Uint8Array;
}

/** Why an address is refused; `public` addresses are allowed. */
export type AddressClass =
  | "public"
  | "loopback"
  | "private"
  | "shared"
  | "link-local"
  | "metadata"
  | "unspecified"
  | "multicast"
  | "broadcast"
  | "reserved";

export const ADDRESS_CLASS_LABELS: Record<AddressClass, string> = {
  public: "a public address",
  loopback: "a loopback address",
  private: "a private network address",
  shared: "a carrier-grade NAT (shared) address",
  "link-local": "a link-local address",
  metadata: "a cloud metadata endpoint",
  unspecified: "an unspecified address",
  multicast: "a multicast address",
  broadcast: "the broadcast address",
  reserved: "a reserved address",
};

// --- IPv4 ------------------------------------------------------------------------------------

function parseIpv4Part(part: string): number | null {
  if (part === "") return null;
  let radix = 10;
  let digits = part;
  if (/^0x/i.test(part)) {
    radix = 16;
    digits = part.slice(2);
    if (digits === "") return 0;
  } else if (part.length > 1 && part.startsWith("0")) {
    radix = 8;
    digits = part.slice(1);
  }
  const valid = radix === 16 ? /^[0-9a-f]+$/i : radix === 8 ? /^[0-7]+$/ : /^[0-9]+$/;
  if (!valid.test(digits)) return null;
  const n = parseInt(digits, radix);
  return Number.isSafeInteger(n) ? n : null;
}

/**
 * IPv4 in every spelling the WHATWG URL parser (and inet_aton) accepts: 1 to 4 parts, each
 * decimal, octal (leading 0) or hex (0x); the last part fills the remaining bytes.
 */
export function parseIpv4(input: string): Uint8Array | null {
  const text = input.endsWith(".") ? input.slice(0, -1) : input;
  const parts = text.split(".");
  if (parts.length < 1 || parts.length > 4) return null;
  const nums: number[] = [];
  for (const p of parts) {
    const n = parseIpv4Part(p);
    if (n === null) return null;
    nums.push(n);
  }
  const last = nums.pop()!;
  if (nums.some((n) => n > 255)) return null;
  if (last >= 256 ** (4 - nums.length)) return null;
  let value = last;
  nums.forEach((n, i) => {
    value += n * 256 ** (3 - i);
  });
  return new Uint8Array([value >>> 24, (value >>> 16) & 255, (value >>> 8) & 255, value & 255]);
}

// --- IPv6 ------------------------------------------------------------------------------------

function parseIpv6(input: string): Uint8Array | null {
  let text = input;
  if (text.startsWith("[") && text.endsWith("]")) text = text.slice(1, -1);
  const zone = text.indexOf("%");
  if (zone >= 0) text = text.slice(0, zone);
  if (!/^[0-9a-f:.]+$/i.test(text) || !text.includes(":")) return null;
  const words: number[] = [];
  const halves = text.split("::");
  if (halves.length > 2) return null;
  const parseHalf = (half: string): number[] | null => {
    if (half === "") return [];
    const out: number[] = [];
    const groups = half.split(":");
    for (let i = 0; i < groups.length; i++) {
      const g = groups[i]!;
      if (g.includes(".")) {
        if (i !== groups.length - 1) return null;
        if (!/^\d{1,3}(\.\d{1,3}){3}$/.test(g)) return null;
        const v4 = g.split(".").map(Number);
        if (v4.some((n) => n > 255)) return null;
        out.push((v4[0]! << 8) | v4[1]!, (v4[2]! << 8) | v4[3]!);
      } else {
        if (!/^[0-9a-f]{1,4}$/i.test(g)) return null;
        out.push(parseInt(g, 16));
      }
    }
    return out;
  };
  const head = parseHalf(halves[0]!);
  const tail = halves.length === 2 ? parseHalf(halves[1]!) : [];
  if (!head || !tail) return null;
  if (halves.length === 2) {
    const fill = 8 - head.length - tail.length;
    if (fill < 1) return null;
    words.push(...head, ...new Array<number>(fill).fill(0), ...tail);
  } else {
    if (head.length !== 8) return null;
    words.push(...head);
  }
  const bytes = new Uint8Array(16);
  words.forEach((w, i) => {
    bytes[i * 2] = w >> 8;
    bytes[i * 2 + 1] = w & 255;
  });
  return bytes;
}

/** Parses an IPv4 (any URL-accepted spelling) or IPv6 literal (brackets and zone ids allowed). */
export function parseIp(input: string): ParsedIp | null {
  const text = input.trim();
  if (text.includes(":")) {
    const bytes = parseIpv6(text);
    return bytes ? { family: 6, bytes } : null;
  }
  // Host names are not IPs even if their last label is numeric-looking ("1.example.com").
  if (!/^[0-9a-fx.]+$/i.test(text)) return null;
  const bytes = parseIpv4(text);
  return bytes ? { family: 4, bytes } : null;
}

export function formatIp(ip: ParsedIp): string {
  if (ip.family === 4) return Array.from(ip.bytes).join(".");
  const words: string[] = [];
  for (let i = 0; i < 16; i += 2) words.push(((ip.bytes[i]! << 8) | ip.bytes[i + 1]!).toString(16));
  // Compress the longest run of zero words (RFC 5952).
  let best = -1;
  let bestLen = 1;
  for (let i = 0; i < 8;) {
    if (words[i] !== "0") {
      i++;
      continue;
    }
    let j = i;
    while (j < 8 && words[j] === "0") j++;
    if (j - i > bestLen) {
      best = i;
      bestLen = j - i;
    }
    i = j;
  }
  if (best < 0) return words.join(":");
  return `${words.slice(0, best).join(":")}::${words.slice(best + bestLen).join(":")}`;
}

/** The canonical text of an IP literal, or null when the input is not one. */
export function normalizeIp(input: string): string | null {
  const ip = parseIp(input);
  return ip ? formatIp(ip) : null;
}

// --- CIDR ------------------------------------------------------------------------------------

export interface Cidr {
  family: IpFamily;
  bytes: Uint8Array;
  prefix: number;
}

/** `10.0.0.0/8`, `fd00::/8`, or a bare address (= a /32 or /128). */
export function parseCidr(input: string): Cidr | null {
  const slash = input.lastIndexOf("/");
  const addr = slash >= 0 ? input.slice(0, slash) : input;
  const ip = parseIp(addr);
  if (!ip) return null;
  const max = ip.family === 4 ? 32 : 128;
  let prefix = max;
  if (slash >= 0) {
    const p = input.slice(slash + 1);
    if (!/^\d{1,3}$/.test(p)) return null;
    prefix = Number(p);
    if (prefix > max) return null;
  }
  return { family: ip.family, bytes: ip.bytes, prefix };
}

export function cidrContains(cidr: Cidr, ip: ParsedIp): boolean {
  if (cidr.family !== ip.family) return false;
  let bits = cidr.prefix;
  for (let i = 0; bits > 0; i++, bits -= 8) {
    const mask = bits >= 8 ? 0xff : (0xff << (8 - bits)) & 0xff;
    if ((cidr.bytes[i]! & mask) !== (ip.bytes[i]! & mask)) return false;
  }
  return true;
}

// --- classification --------------------------------------------------------------------------

const cidr = (text: string): Cidr => {
  const c = parseCidr(text);
  if (!c) throw new Error(`bad CIDR constant ${text}`);
  return c;
};

/** Well-known cloud metadata endpoints (AWS/GCP/Azure/OCI/DigitalOcean, ECS, Alibaba, Oracle legacy, AWS IPv6). */
const METADATA_ADDRESSES: readonly Cidr[] = [
  "169.254.169.254",
  "169.254.170.2",
  "100.100.100.200",
  "192.0.0.192",
  "fd00:ec2::254",
].map(cidr);

/** Host names that resolve to metadata services inside clouds. Refused by name, before DNS. */
export const METADATA_HOST_NAMES: readonly string[] = [
  "metadata",
  "metadata.google.internal",
  "metadata.goog",
  "instance-data",
  "instance-data.ec2.internal",
  "metadata.azure.internal",
  "metadata.tencentyun.com",
];

const V4_RANGES: ReadonlyArray<[Cidr, AddressClass]> = (
  [
    ["0.0.0.0/8", "unspecified"],
    ["10.0.0.0/8", "private"],
    ["100.64.0.0/10", "shared"],
    ["127.0.0.0/8", "loopback"],
    ["169.254.0.0/16", "link-local"],
    ["172.16.0.0/12", "private"],
    ["192.0.0.0/24", "reserved"],
    ["192.0.2.0/24", "reserved"],
    ["192.88.99.0/24", "reserved"],
    ["192.168.0.0/16", "private"],
    ["198.18.0.0/15", "reserved"],
    ["198.51.100.0/24", "reserved"],
    ["203.0.113.0/24", "reserved"],
    ["224.0.0.0/4", "multicast"],
    ["255.255.255.255/32", "broadcast"],
    ["240.0.0.0/4", "reserved"],
  ] as const
).map(([c, k]) => [cidr(c), k]);

const V6_RANGES: ReadonlyArray<[Cidr, AddressClass]> = (
  [
    ["::/128", "unspecified"],
    ["::1/128", "loopback"],
    ["100::/64", "reserved"],
    ["64:ff9b:1::/48", "private"],
    ["2001:db8::/32", "reserved"],
    ["fc00::/7", "private"],
    ["fe80::/10", "link-local"],
    ["fec0::/10", "private"],
    ["ff00::/8", "multicast"],
  ] as const
).map(([c, k]) => [cidr(c), k]);

export const V4_MAPPED = cidr("::ffff:0:0/96");
const V4_COMPATIBLE = cidr("::/96");
const NAT64 = cidr("64:ff9b::/96");
const SIX_TO_FOUR = cidr("2002::/16");

/** The IPv4 address an IPv6 address carries (mapped, compatible, NAT64, 6to4), if any. */
export function embeddedIpv4(ip: ParsedIp): ParsedIp | null {
  if (ip.family !== 6) return null;
  const b = ip.bytes;
  if (cidrContains(V4_MAPPED, ip) || cidrContains(NAT64, ip)) {
    return { family: 4, bytes: b.slice(12, 16) };
  }
  if (cidrContains(V4_COMPATIBLE, ip)) {
    // :: and ::1 are classified as IPv6 (unspecified, loopback).
    const tail = b.slice(12, 16);
    if (tail[0] === 0 && tail[1] === 0 && tail[2] === 0 && tail[3]! <= 1) return null;
    return { family: 4, bytes: tail };
  }
  if (cidrContains(SIX_TO_FOUR, ip)) return { family: 4, bytes: b.slice(2, 6) };
  return null;
}

export function classifyIp(ip: ParsedIp): AddressClass {
  const inner = embeddedIpv4(ip);
  if (inner) return classifyIp(inner);
  if (METADATA_ADDRESSES.some((m) => cidrContains(m, ip))) return "metadata";
  for (const [range, kind] of ip.family === 4 ? V4_RANGES : V6_RANGES) {
    if (cidrContains(range, ip)) return kind;
  }
  return "public";
}

/** Classifies a textual address; anything that is not an IP literal is `reserved`. */
export function classifyAddress(address: string): AddressClass {
  const ip = parseIp(address);
  return ip ? classifyIp(ip) : "reserved";
}
