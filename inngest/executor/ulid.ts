/**
 * ULIDs (time-sortable, Crockford base32) for event and run ids — the id format Inngest uses.
 * `seededUlids` derives ids from the SDK's `x-inngest-event-id-seed` header so a retried send gets
 * the same ids and is stored once.
 */
import { randomBytes } from "node:crypto";

const B32 = "0123456789ABCDEFGHJKMNPQRSTVWXYZ";

function encodeTime(ms: number): string {
  let out = "";
  let t = Math.floor(ms);
  for (let i = 0; i < 10; i++) {
    out = B32[t % 32] + out;
    t = Math.floor(t / 32);
  }
  return out;
}

/** 80 random bits → 16 base32 characters. */
function encodeEntropy(bytes: Uint8Array): string {
  let bits = 0n;
  for (const b of bytes) bits = (bits << 8n) | BigInt(b);
  let out = "";
  for (let i = 0; i < 16; i++) {
    out = B32[Number(bits & 31n)] + out;
    bits >>= 5n;
  }
  return out;
}

export function ulid(ms: number = Date.now()): string {
  return encodeTime(ms) + encodeEntropy(randomBytes(10));
}

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
 * Ids for a batch sent with `x-inngest-event-id-seed: "<ms>,<base64 of 10 bytes>"`: the seed's
 * time, and its entropy with the event's index added to the last four bytes. Undefined when the
 * header is absent or malformed (then fresh random ids are used).
 */
export function seededUlids(seed: string | null | undefined, count: number): string[] | undefined {
  if (!seed) return undefined;
  const [msText, b64] = seed.split(",");
  const ms = Number(msText);
  if (!Number.isSafeInteger(ms) || ms < 0 || !b64) return undefined;
  const entropy = Buffer.from(b64, "base64");
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
    ids.push(encodeTime(ms) + encodeEntropy(bytes));
  }
  return ids;
}
