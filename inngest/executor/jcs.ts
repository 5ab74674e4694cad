/**
 * RFC 8785 JSON canonicalisation: the SDK verifies a request signature over the canonical form of
 * the parsed body, so the executor signs and sends exactly these bytes. It is the `canonicalize`
 * package the SDK itself uses for signatures (inngest 4.24 depends on 1.0.8), so both sides can
 * never disagree on a corner case; this wrapper only refuses what has no JSON form.
 */
import serialize from "canonicalize";

export function canonicalize(value: unknown): string {
  if (typeof value === "number" && !Number.isFinite(value))
    throw new Error("JCS: non-finite number");
  const text = serialize(value);
  if (text === undefined) throw new Error("JCS: the value has no JSON form");
  return text;
}
