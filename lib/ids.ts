/**
 * The one id generator. Every id is a 48-bit millisecond timestamp followed by random bits, in
 * Crockford base32, so ids sort by creation:
 * - `newId("wf")` → `wf_01jd…` (prefixed, lower-case): the prefix tells an API user what an id is.
 * - `ulid()` → `01JD…` (upper-case ULID, 80 random bits): the format Inngest uses for event and
 *   run ids, so the embedded executor's ids look like Inngest's.
 * Isomorphic (Web Crypto).
 */
const B32 = "0123456789ABCDEFGHJKMNPQRSTVWXYZ"; // Crockford base32

export type IdPrefix =
  | "usr"
  | "ws"
  | "inv"
  | "tok"
  | "aud"
  | "wf"
  | "ver"
  | "run"
  | "att"
  | "evt"
  | "apr"
  | "trg"
  | "dlv"
  | "sec"
  | "prp"
  | "ob"
  | "acct"
  /** An error reference shown to a caller and logged with the error. */
  | "ref"
  | string;

/** 10 characters: 48 bits of milliseconds. */
function encodeTime(ms: number): string {
  let out = "";
  let t = Math.floor(ms);
  for (let i = 0; i < 10; i++) {
    out = B32[t % 32] + out;
    t = Math.floor(t / 32);
  }
  return out;
}

/** The low `chars × 5` bits of `bytes` as `chars` base32 characters. */
function encodeBits(bytes: Uint8Array, chars: number): string {
  let bits = 0n;
  for (const b of bytes) bits = (bits << 8n) | BigInt(b);
  let out = "";
  for (let i = 0; i < chars; i++) {
    out = B32[Number(bits & 31n)] + out;
    bits >>= 5n;
  }
  return out;
}

function randomBytes(n: number): Uint8Array {
  const bytes = new Uint8Array(n);
  crypto.getRandomValues(bytes);
  return bytes;
}

/** A prefixed id: `<prefix>_` + 10 time characters + 12 random ones (60 bits), lower-case. */
export function newId(prefix: IdPrefix): string {
  return `${prefix}_${(encodeTime(Date.now()) + encodeBits(randomBytes(8), 12)).toLowerCase()}`;
}

/** A ULID: 10 time characters + 16 random ones (80 bits), upper-case. */
export function ulid(ms: number = Date.now()): string {
  return encodeTime(ms) + encodeBits(randomBytes(10), 16);
}

/** The millisecond timestamp of a ULID (or of a newId without its prefix); NaN if malformed. */
export function ulidTime(id: string): number {
  let t = 0;
  for (const ch of id.slice(0, 10).toUpperCase()) {
    const v = B32.indexOf(ch);
    if (v < 0) return Number.NaN;
    t = t * 32 + v;
  }
  return t;
}

/**
 * ULIDs for a batch sent with Inngest's `x-inngest-event-id-seed: "<ms>,<base64 of 10 bytes>"`
 * header, so a retried send gets the same ids and is stored once: the seed's time, and its
 * entropy with the event's index added to the last four bytes. Undefined when the header is
 * absent or malformed (then fresh random ids are used).
 */
export function seededUlids(seed: string | null | undefined, count: number): string[] | undefined {
  if (!seed) return undefined;
  const [msText, b64] = seed.split(",");
  const ms = Number(msText);
  if (!Number.isSafeInteger(ms) || ms < 0 || !b64) return undefined;
  let entropy: Uint8Array;
  try {
    entropy = Uint8Array.from(atob(b64), (c) => c.charCodeAt(0));
  } catch {
    return undefined; // not base64: treated like a missing header
  }
  if (entropy.length !== 10) return undefined;
  const ids: string[] = [];
  for (let i = 0; i < count; i++) {
    const bytes = Uint8Array.from(entropy);
    const tail = (bytes[6]! << 24) | (bytes[7]! << 16) | (bytes[8]! << 8) | bytes[9]!;
    const next = (tail + i) >>> 0;
    bytes[6] = next >>> 24;
    bytes[7] = (next >>> 16) & 0xff;
    bytes[8] = (next >>> 8) & 0xff;
    bytes[9] = next & 0xff;
    ids.push(encodeTime(ms) + encodeBits(bytes, 16));
  }
  return ids;
}
