/**
 * Secret redaction (SPEC §10: secrets never appear in stored outputs, errors, logs or API
 * responses — also base64/URL-encoded). Pure and isomorphic.
 *
 * For every secret value of at least MIN_REDACTABLE_LENGTH characters, the redactor replaces the
 * value and its common encodings with `[REDACTED:NAME]`: raw, JSON-escaped (once and twice, for
 * JSON embedded in log lines), base64 (padded, unpadded, and the stable core of the value at each
 * of the three byte alignments inside a longer base64 text such as a Basic auth header),
 * base64url, hex (both cases), encodeURIComponent / encodeURI / form encoding (both hex cases).
 *
 * In JSON-like structures it redacts keys and values, and also values split across neighbouring
 * strings (`["sup", "ersecret"]`, `{ a: "sup", b: "ersecret" }`): each fragment of a match that
 * spans several strings is replaced. A program determined to leak a value it was given (reversing
 * it, interleaving characters) can still do so; redaction is a safety net, not a sandbox.
 */
import { addLogRedactor } from "./log";

export const MIN_REDACTABLE_LENGTH = 4;
/** Base64 cores shorter than this are skipped: they would match unrelated text. */
const MIN_SHIFTED_CORE_LENGTH = 8;

export interface SecretEntry {
  /** Shown in the placeholder: `[REDACTED:NAME]`. */
  name?: string;
  value: string;
}

export interface Redactor {
  /** Number of distinct secret values being redacted. */
  readonly size: number;
  /** Redacts every occurrence of every secret (and its encodings) in a string. */
  string(text: string): string;
  /**
   * Redacts deep inside a value: strings, object keys, numbers whose text matches, errors (message,
   * stack and own properties), including matches split across neighbouring strings. Returns a
   * copy; the input is not modified. Cycles are preserved.
   */
  value<T>(value: T): T;
  /** True when the string contains a secret or one of its encodings. */
  contains(text: string): boolean;
}

const utf8 = new TextEncoder();

function toBase64(bytes: Uint8Array): string {
  let binary = "";
  for (const b of bytes) binary += String.fromCharCode(b);
  return btoa(binary);
}

const toBase64Url = (b64: string) => b64.replace(/\+/g, "-").replace(/\//g, "_").replace(/=+$/, "");

function toHex(bytes: Uint8Array): string {
  let out = "";
  for (const b of bytes) out += b.toString(16).padStart(2, "0");
  return out;
}

const lowerPercent = (s: string) => s.replace(/%[0-9A-F]{2}/g, (m) => m.toLowerCase());

/**
 * The stable base64 characters of `bytes` when it starts `shift` bytes into a longer base64
 * stream: characters mixing in bits of the surrounding bytes are dropped at both ends.
 */
function base64Core(bytes: Uint8Array, shift: 0 | 1 | 2): string {
  const padded = new Uint8Array(shift + bytes.length);
  padded.set(bytes, shift);
  const encoded = toBase64(padded);
  const start = shift === 0 ? 0 : shift === 1 ? 2 : 3;
  const end = Math.floor((padded.length * 8) / 6);
  return encoded.slice(start, end);
}

/** Every encoded form of a secret value that the redactor looks for. */
export function secretVariants(value: string): string[] {
  const bytes = utf8.encode(value);
  const out = new Set<string>([value]);
  const json = JSON.stringify(value).slice(1, -1);
  out.add(json);
  out.add(JSON.stringify(json).slice(1, -1));
  const b64 = toBase64(bytes);
  out.add(b64);
  out.add(b64.replace(/=+$/, ""));
  out.add(toBase64Url(b64));
  for (const shift of [0, 1, 2] as const) {
    const core = base64Core(bytes, shift);
    if (core.length >= MIN_SHIFTED_CORE_LENGTH) {
      out.add(core);
      out.add(toBase64Url(core));
    }
  }
  const hex = toHex(bytes);
  out.add(hex);
  out.add(hex.toUpperCase());
  const uri = encodeURIComponent(value);
  const form = new URLSearchParams({ v: value }).toString().slice(2);
  let fullUri: string | null = null;
  try {
    fullUri = encodeURI(value);
  } catch {
    // Lone surrogates cannot be URI-encoded; the other forms still cover the value.
    fullUri = null;
  }
  for (const u of [uri, form, fullUri, uri.replace(/%20/g, "+")]) {
    if (u === null) continue;
    out.add(u);
    out.add(lowerPercent(u));
  }
  return [...out].filter((v) => v.length >= MIN_REDACTABLE_LENGTH);
}

const escapeRegExp = (s: string) => s.replace(/[.*+?^${}()|[\]\\]/g, "\\$&");

interface Match {
  start: number;
  end: number;
  label: string;
}

const IDENTITY: Redactor = {
  size: 0,
  string: (text) => text,
  value: (v) => v,
  contains: () => false,
};

/** Builds a redactor for these secrets; values shorter than MIN_REDACTABLE_LENGTH are ignored. */
export function createRedactor(secrets: Iterable<SecretEntry | string>): Redactor {
  const labels = new Map<string, string>();
  let size = 0;
  const seen = new Set<string>();
  for (const s of secrets) {
    const entry = typeof s === "string" ? { value: s } : s;
    if (typeof entry.value !== "string" || entry.value.length < MIN_REDACTABLE_LENGTH) continue;
    if (seen.has(entry.value)) continue;
    seen.add(entry.value);
    size++;
    const label = entry.name ? `[REDACTED:${entry.name}]` : "[REDACTED]";
    for (const v of secretVariants(entry.value)) if (!labels.has(v)) labels.set(v, label);
  }
  if (size === 0) return IDENTITY;
  // Longest first: JS alternation takes the first alternative that matches at a position.
  const needles = [...labels.keys()].sort((a, b) => b.length - a.length);
  const pattern = new RegExp(needles.map(escapeRegExp).join("|"), "g");

  const matches = (text: string): Match[] => {
    const found: Match[] = [];
    pattern.lastIndex = 0;
    for (let m = pattern.exec(text); m; m = pattern.exec(text)) {
      found.push({ start: m.index, end: m.index + m[0].length, label: labels.get(m[0])! });
    }
    return found;
  };

  const string = (text: string): string =>
    text.length < MIN_REDACTABLE_LENGTH
      ? text
      : text.replace(pattern, (m) => labels.get(m) ?? "[REDACTED]");

  return {
    size,
    string,
    contains: (text) => {
      pattern.lastIndex = 0;
      return pattern.test(text);
    },
    value: <T>(value: T): T => redactDeep(value, matches),
  };
}

// --- deep redaction --------------------------------------------------------------------------

interface Leaf {
  text: string;
  /** Character ranges to replace, in this leaf's coordinates. */
  cuts: Match[];
}

/**
 * Walks the value once to collect its string leaves (keys, strings, numbers) in serialisation
 * order, finds matches inside each leaf and across neighbouring leaves, then rebuilds the value.
 */
function redactDeep<T>(root: T, matches: (text: string) => Match[]): T {
  const leaves: Leaf[] = [];
  const valueLeaves: Leaf[] = [];
  const addLeaf = (text: string, isKey: boolean): Leaf => {
    const leaf: Leaf = { text, cuts: matches(text) };
    leaves.push(leaf);
    if (!isKey) valueLeaves.push(leaf);
    return leaf;
  };

  // Pass 1: collect leaves. Objects are visited once (cycles and shared references).
  const visited = new Set<object>();
  const keyLeaves = new Map<object, Map<string, Leaf>>();
  const stringLeaves = new Map<object, Map<PropertyKey, Leaf>>();
  const rootHolder = { v: root as unknown };
  const visit = (node: unknown, holder: object, key: PropertyKey) => {
    if (typeof node === "string" || typeof node === "number") {
      const text = String(node);
      const leaf = addLeaf(text, false);
      let m = stringLeaves.get(holder);
      if (!m) stringLeaves.set(holder, (m = new Map()));
      m.set(key, leaf);
      return;
    }
    if (node === null || typeof node !== "object" || visited.has(node)) return;
    visited.add(node);
    if (node instanceof Error) {
      for (const k of ["message", "stack"] as const) visit(node[k], node, k);
      for (const k of Object.keys(node))
        visit((node as unknown as Record<string, unknown>)[k], node, k);
      return;
    }
    if (Array.isArray(node)) {
      node.forEach((item, i) => visit(item, node, i));
      return;
    }
    if (!isPlainRecord(node)) return;
    const keys = new Map<string, Leaf>();
    keyLeaves.set(node, keys);
    for (const k of Object.keys(node)) {
      keys.set(k, addLeaf(k, true));
      visit((node as Record<string, unknown>)[k], node, k);
    }
  };
  visit(root, rootHolder, "v");

  // Pass 2: matches spanning neighbouring leaves, in key+value order and in value-only order.
  for (const sequence of [leaves, valueLeaves]) addCrossMatches(sequence, matches);

  if (!leaves.some((l) => l.cuts.length > 0)) return root;

  // Pass 3: rebuild with redacted leaves.
  const copies = new Map<object, unknown>();
  const leafText = (leaf: Leaf | undefined, original: string) =>
    leaf && leaf.cuts.length ? applyCuts(leaf) : original;
  const rebuild = (node: unknown, holder: object, key: PropertyKey): unknown => {
    if (typeof node === "string") return leafText(stringLeaves.get(holder)?.get(key), node);
    if (typeof node === "number") {
      const leaf = stringLeaves.get(holder)?.get(key);
      return leaf && leaf.cuts.length ? applyCuts(leaf) : node;
    }
    if (node === null || typeof node !== "object") return node;
    if (copies.has(node)) return copies.get(node);
    if (node instanceof Error) {
      const copy = Object.create(Object.getPrototypeOf(node) as object) as Error;
      copies.set(node, copy);
      for (const k of Object.keys(node)) {
        (copy as unknown as Record<string, unknown>)[k] = rebuild(
          (node as unknown as Record<string, unknown>)[k],
          node,
          k,
        );
      }
      for (const k of ["message", "stack"] as const) {
        const v = rebuild(node[k], node, k);
        Object.defineProperty(copy, k, { value: v, writable: true, configurable: true });
      }
      return copy;
    }
    if (Array.isArray(node)) {
      const copy: unknown[] = [];
      copies.set(node, copy);
      node.forEach((item, i) => {
        copy[i] = rebuild(item, node, i);
      });
      return copy;
    }
    if (!isPlainRecord(node)) return node;
    const copy: Record<string, unknown> =
      Object.getPrototypeOf(node) === null ? Object.create(null) : {};
    copies.set(node, copy);
    const keys = keyLeaves.get(node);
    for (const k of Object.keys(node)) {
      let newKey = leafText(keys?.get(k), k);
      if (newKey !== k) {
        const base = newKey;
        for (let i = 2; Object.prototype.hasOwnProperty.call(copy, newKey); i++)
          newKey = `${base}#${i}`;
      }
      const v = rebuild((node as Record<string, unknown>)[k], node, k);
      Object.defineProperty(copy, newKey, {
        value: v,
        enumerable: true,
        writable: true,
        configurable: true,
      });
    }
    return copy;
  };
  return rebuild(root, rootHolder, "v") as T;
}

function isPlainRecord(value: object): boolean {
  const proto: unknown = Object.getPrototypeOf(value);
  return proto === Object.prototype || proto === null;
}

/** Finds matches in the concatenation of the leaves that span more than one leaf. */
function addCrossMatches(sequence: Leaf[], matches: (text: string) => Match[]): void {
  if (sequence.length < 2) return;
  const starts: number[] = [];
  let total = 0;
  for (const leaf of sequence) {
    starts.push(total);
    total += leaf.text.length;
  }
  const joined = sequence.map((l) => l.text).join("");
  for (const m of matches(joined)) {
    const first = leafIndexAt(starts, m.start);
    const last = leafIndexAt(starts, m.end - 1);
    if (first === last) continue;
    for (let i = first; i <= last; i++) {
      const leaf = sequence[i]!;
      const start = Math.max(m.start - starts[i]!, 0);
      const end = Math.min(m.end - starts[i]!, leaf.text.length);
      if (end > start) leaf.cuts.push({ start, end, label: m.label });
    }
  }
}

function leafIndexAt(starts: number[], offset: number): number {
  let lo = 0;
  let hi = starts.length - 1;
  while (lo < hi) {
    const mid = (lo + hi + 1) >> 1;
    if (starts[mid]! <= offset) lo = mid;
    else hi = mid - 1;
  }
  return lo;
}

function applyCuts(leaf: Leaf): string {
  const cuts = [...leaf.cuts].sort((a, b) => a.start - b.start || b.end - a.end);
  let out = "";
  let pos = 0;
  for (const c of cuts) {
    if (c.end <= pos) continue;
    if (c.start >= pos) {
      out += leaf.text.slice(pos, c.start) + c.label;
    }
    pos = Math.max(pos, c.end);
  }
  return out + leaf.text.slice(pos);
}

/** Applies the redactor to every log line (lib/log.ts). Returns the function that removes it. */
export function registerLogRedactor(redactor: Redactor): () => void {
  if (redactor.size === 0) return () => {};
  return addLogRedactor((line) => redactor.string(line));
}

/** Keys whose values are secret by name, compared without case, `_` or `-` (`api_key` = `apiKey`). */
const SECRET_KEYS = new Set([
  "value",
  "secret",
  "secretvalue",
  "token",
  "accesstoken",
  "refreshtoken",
  "password",
  "apikey",
  "privatekey",
  "clientsecret",
  "authorization",
  "cookie",
]);

export const REDACTED_KEY_VALUE = "[REDACTED]";

/**
 * A copy of a JSON-like value with the values of secret-named keys replaced (audit details shown or
 * exported). Exact key names only: `passwordSecret` names a secret, it does not hold one.
 */
export function redactSecretKeys<T>(value: T): T {
  if (Array.isArray(value)) return value.map((v) => redactSecretKeys(v)) as T;
  if (value === null || typeof value !== "object" || !isPlainRecord(value)) return value;
  const out: Record<string, unknown> = {};
  for (const [k, v] of Object.entries(value)) {
    out[k] = SECRET_KEYS.has(k.toLowerCase().replace(/[_-]/g, ""))
      ? REDACTED_KEY_VALUE
      : redactSecretKeys(v);
  }
  return out as T;
}
