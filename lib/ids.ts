/**
 * Prefixed, time-sortable ids (`wf_01JD…`): the prefix tells an API user what an id is; the
 * 48-bit millisecond timestamp makes ids sort by creation. Isomorphic (Web Crypto).
 */
const ALPHABET = "0123456789abcdefghjkmnpqrstvwxyz"; // Crockford base32, lower-case

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
  | string;

export function newId(prefix: IdPrefix): string {
  let time = Date.now();
  let t = "";
  for (let i = 0; i < 10; i++) {
    t = ALPHABET[time % 32] + t;
    time = Math.floor(time / 32);
  }
  const bytes = new Uint8Array(12);
  crypto.getRandomValues(bytes);
  let r = "";
  for (const b of bytes) r += ALPHABET[b % 32];
  return `${prefix}_${t}${r}`;
}
