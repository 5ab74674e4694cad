/**
 * RFC 8785 JSON canonicalisation: the SDK verifies a request signature over the canonical form of
 * the parsed body, so the executor signs and sends exactly these bytes.
 */
export function canonicalize(value: unknown): string {
  if (typeof value === "bigint") return value.toString();
  if (value === null || typeof value !== "object") {
    if (typeof value === "number" && !Number.isFinite(value))
      throw new Error("JCS: non-finite number");
    // JSON.stringify already uses the ECMAScript number and string serialisation JCS mandates.
    return JSON.stringify(value) ?? "null";
  }
  if (typeof (value as { toJSON?: unknown }).toJSON === "function") {
    return canonicalize((value as { toJSON(): unknown }).toJSON());
  }
  if (Array.isArray(value)) {
    return `[${value.map((v) => (v === undefined || typeof v === "function" ? "null" : canonicalize(v))).join(",")}]`;
  }
  const entries = Object.entries(value as Record<string, unknown>)
    .filter(([, v]) => v !== undefined && typeof v !== "function")
    // JCS sorts by UTF-16 code units, which is what the default string comparison does.
    .sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0));
  return `{${entries.map(([k, v]) => `${JSON.stringify(k)}:${canonicalize(v)}`).join(",")}}`;
}
