/**
 * react-hook-form glue for the issue adapter: a resolver that validates (and transforms) the
 * form's values with a zod schema and places its issues with `mapIssues`, and the conversion
 * of mapped issues into react-hook-form's nested error object.
 *
 * Why not `zodResolver` from @hookform/resolvers: it maps zod paths onto field names by itself,
 * which would be a second issue → field adapter (CONVENTIONS: "five issue→field adapters"), and
 * it cannot fold deep paths onto the field that edits them or rename `maxBodyBytes` to the
 * `maxBodyKb` field. Server issues go through the same `mapIssues` (see `useIssueForm`).
 */
import type { FieldErrors, FieldValues, Resolver, ResolverResult } from "react-hook-form";
import type { z } from "zod";
import { mapIssues, type FieldIssues, type MapIssuesOptions } from "./issues";

/** The `type` of every error placed from an issue (react-hook-form needs one). */
export const ISSUE_ERROR_TYPE = "issue";

/**
 * Mapped issues → react-hook-form errors: each field key becomes a nested entry
 * (`verification.header` → `{ verification: { header: { type, message } } }`); unplaced issues
 * go to `root`, one entry per issue in `root.types` (key → message) for the form's summary.
 */
export function toFieldErrors<T extends FieldValues>(mapped: FieldIssues): FieldErrors<T> {
  const errors: Record<string, unknown> = {};
  for (const [key, message] of Object.entries(mapped.byField)) {
    const parts = key.split(".");
    let at = errors;
    for (const part of parts.slice(0, -1)) {
      const next = at[part];
      at = (typeof next === "object" && next !== null ? next : (at[part] = {})) as Record<
        string,
        unknown
      >;
    }
    at[parts[parts.length - 1]!] = { type: ISSUE_ERROR_TYPE, message };
  }
  if (mapped.unplaced.length > 0) {
    errors.root = {
      type: ISSUE_ERROR_TYPE,
      message: mapped.unplaced[0]!.message,
      types: Object.fromEntries(mapped.unplaced.map((u) => [u.key, u.message])),
    };
  }
  return errors as FieldErrors<T>;
}

/**
 * A resolver from a zod schema over the form's values. The schema may transform the values
 * (text fields → the submitted shape); `handleSubmit` then receives the parsed output.
 */
export function issueResolver<S extends z.ZodType>(
  schema: S,
  options: MapIssuesOptions = {},
): Resolver<z.input<S> & FieldValues, unknown, z.output<S>> {
  type Values = z.input<S> & FieldValues;
  return async (values: Values): Promise<ResolverResult<Values, z.output<S>>> => {
    const parsed = await schema.safeParseAsync(values);
    if (parsed.success) return { values: parsed.data, errors: {} };
    return { values: {}, errors: toFieldErrors<Values>(mapIssues(parsed.error.issues, options)) };
  };
}
