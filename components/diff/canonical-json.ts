/**
 * The text both sides of a JSON diff show: the canonical definition (lib/workflow's hashed form:
 * defaults explicit, edges explicit, `layout` dropped) with deep-sorted keys, indented two spaces.
 * Equal hashes therefore give equal text, and a diff shows only what the hash sees.
 */
import { canonicalDefinition } from "@/lib/workflow";

/** Canonical pretty text of a definition; a value that is not a valid definition is shown as is (keys sorted). */
export function canonicalDefinitionText(definition: unknown): string {
  let value: unknown = definition;
  try {
    value = canonicalDefinition(definition);
  } catch {
    // Invalid definitions (e.g. a broken draft) are still worth diffing as plain JSON.
    value = definition;
  }
  return prettySorted(value);
}

/**
 * JSON.stringify(value, null, 2) with object keys in code-unit order at every depth. Written out
 * rather than re-parsing canonical text because JS objects put integer-like keys first.
 */
export function prettySorted(value: unknown, indent = ""): string {
  if (value === undefined) return "null";
  if (value === null || typeof value !== "object") return JSON.stringify(value) ?? "null";
  const inner = `${indent}  `;
  if (Array.isArray(value)) {
    if (value.length === 0) return "[]";
    return `[\n${value.map((v) => inner + prettySorted(v, inner)).join(",\n")}\n${indent}]`;
  }
  const entries = Object.keys(value)
    .sort()
    .filter((k) => (value as Record<string, unknown>)[k] !== undefined);
  if (entries.length === 0) return "{}";
  return `{\n${entries
    .map(
      (k) =>
        `${inner}${JSON.stringify(k)}: ${prettySorted((value as Record<string, unknown>)[k], inner)}`,
    )
    .join(",\n")}\n${indent}}`;
}
