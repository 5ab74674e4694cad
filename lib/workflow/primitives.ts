/**
 * Small zod building blocks shared by the definition and step config schemas. Custom schemas here
 * (JSON values, durations) carry a JSON Schema of their own through `jsonSchemaOverrides`, used
 * by json-schema.ts, because zod cannot describe a `z.custom` by itself.
 */
import { z } from "zod";
import { tryParseDuration } from "./duration";
import { FORBIDDEN_KEYS, jsonProblem, type JsonValue } from "./json";
import { hasTemplate } from "./templates";

/** JSON Schemas for the custom zod schemas below, looked up by schema identity. */
export const jsonSchemaOverrides = new WeakMap<z.ZodType, Record<string, unknown>>();

function withJsonSchema<T extends z.ZodType>(schema: T, jsonSchema: Record<string, unknown>): T {
  jsonSchemaOverrides.set(schema, jsonSchema);
  return schema;
}

export const STEP_ID_PATTERN = /^[a-z][a-z0-9_]*$/;
export const STEP_ID_MAX_LENGTH = 64;

export const StepId = z
  .string()
  .max(STEP_ID_MAX_LENGTH, { message: `Step ids are at most ${STEP_ID_MAX_LENGTH} characters.` })
  .regex(STEP_ID_PATTERN, {
    message:
      "Step ids start with a lower-case letter and contain only a-z, 0-9 and _ (e.g. fetch_orders).",
  })
  .describe(
    "Unique step id: lower-case letter, then a-z, 0-9, _ (max 64). Referenced as steps.<id>.output.",
  );

export const VALUE_REQUIRED_MESSAGE = "A value is required here.";

/** Any JSON value; strings inside may hold `{{ }}` templates. One check per field keeps parsing cheap. */
export function jsonValue(description: string) {
  const schema = z
    .custom<JsonValue>((value) => value !== undefined && jsonProblem(value) === null, {
      params: { code: "INVALID_TYPE" },
      error: (issue) =>
        issue.input === undefined
          ? VALUE_REQUIRED_MESSAGE
          : `Not a JSON value: ${jsonProblem(issue.input) ?? "invalid"}.`,
    })
    .describe(description);
  return withJsonSchema(schema, { description });
}

/** Identifier-like names for inputs, variables and env vars; never a prototype member name. */
export function identifier(what: string, pattern = /^[A-Za-z_][A-Za-z0-9_]*$/) {
  return z
    .string()
    .max(128, { message: `${what} names are at most 128 characters.` })
    .regex(pattern, {
      message: `${what} names start with a letter or _ and contain only letters, digits and _.`,
    })
    .refine((name) => !FORBIDDEN_KEYS.has(name), {
      message: `${what} names cannot be __proto__, prototype or constructor.`,
    });
}

export const SecretName = z
  .string()
  .regex(/^[A-Z][A-Z0-9_]*$/, {
    message: "Secret names are upper case: a letter, then A-Z, 0-9, _ (e.g. API_TOKEN).",
  })
  .max(128)
  .describe("Name of a workspace secret (A-Z, 0-9, _).");

/** A literal duration ("30s", "10m", "1h30m", "2d", "1w"). */
export function durationString(description: string) {
  const schema = z
    .string()
    .superRefine((value, ctx) => {
      const parsed = tryParseDuration(value);
      if (!parsed.ok)
        ctx.addIssue({
          code: "custom",
          message: parsed.error,
          params: { code: "INVALID_DURATION" },
        });
    })
    .describe(description);
  return withJsonSchema(schema, {
    type: "string",
    pattern: "^(\\d+w)?(\\d+d)?(\\d+h)?(\\d+m)?(\\d+s)?(\\d+ms)?$",
    description,
  });
}

/** A duration, or a template resolved at run time (checked again then). */
export function durationOrTemplate(description: string) {
  const schema = z
    .string()
    .superRefine((value, ctx) => {
      if (hasTemplate(value)) return;
      const parsed = tryParseDuration(value);
      if (!parsed.ok)
        ctx.addIssue({
          code: "custom",
          message: parsed.error,
          params: { code: "INVALID_DURATION" },
        });
    })
    .describe(description);
  return withJsonSchema(schema, { type: "string", description });
}

/** A string that may contain templates; `min` guards against empty required strings. */
export function templateString(description: string, max = 100_000) {
  return z
    .string()
    .min(1, { message: "Cannot be empty." })
    .max(max)
    .describe(`${description} Templates allowed.`);
}

export const EventName = z
  .string()
  .min(1)
  .max(128)
  .regex(/^[A-Za-z0-9][A-Za-z0-9._:/-]*$/, {
    message:
      'Event names use letters, digits and . _ : / - (e.g. "order.paid" or "billing/invoice.created").',
  })
  .describe('Event name, e.g. "order.paid" or "billing/invoice.created".');

/** Matches absolute http(s) URLs written literally (templates are checked at run time). */
export function literalHttpUrlProblem(url: string): string | null {
  if (hasTemplate(url)) return null;
  let parsed: URL;
  try {
    parsed = new URL(url);
  } catch {
    return `"${url}" is not an absolute URL; write e.g. "https://api.example.com/path".`;
  }
  if (parsed.protocol !== "http:" && parsed.protocol !== "https:")
    return `URL scheme "${parsed.protocol}" is not allowed; use http or https.`;
  if (parsed.username || parsed.password)
    return "Credentials in URLs are not allowed; send them in a header with a secret, e.g. {{ secrets.API_TOKEN }}.";
  return null;
}
