/** Text ⇄ JSON for the free-form JSON fields (pure, unit-tested). */

export type JsonTextResult = { ok: true; value: unknown } | { ok: false; error: string };

/** Blank → undefined; otherwise JSON, with a hint when plain text was meant as a string. */
export function parseJsonText(text: string): JsonTextResult {
  if (text.trim() === "") return { ok: true, value: undefined };
  try {
    return { ok: true, value: JSON.parse(text) as unknown };
  } catch (e) {
    const looksLikeText = !/^\s*([[{"\d-]|true\b|false\b|null\b)/.test(text);
    return {
      ok: false,
      error: looksLikeText
        ? `Not JSON: text needs quotes, e.g. "${text.trim().slice(0, 40)}".`
        : `Not valid JSON: ${(e as Error).message}`,
    };
  }
}

/** How a value is shown in a JSON field: blank for undefined, else indented JSON. */
export function jsonText(value: unknown): string {
  return value === undefined ? "" : JSON.stringify(value, null, 2);
}
