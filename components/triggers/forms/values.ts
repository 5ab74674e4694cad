import type { Control } from "react-hook-form";
import { z } from "zod";
import type { MapIssuesOptions } from "@/components/forms/issues";
import { configSchemaFor, CreateTriggerInput, type TriggerKind } from "@/lib/schemas/triggers";
import {
  mappingToRows,
  parseJsonObject,
  prettyJson,
  rowsToMapping,
  type MappingRow,
} from "../trigger-model";

/**
 * The trigger dialog's form model (pure): values as the person edits them — numbers may be
 * blank, JSON objects are text, the input mapping is rows — and the schema that turns them into
 * the trigger's config, with every problem reported at the field that edits it.
 */

export interface TriggerFormValues {
  name: string;
  /** Webhooks only, on create: the custom URL path. */
  path: string;
  method: string;
  verification: {
    preset: string;
    header: string;
    prefix: string;
    encoding: string;
    timestampHeader: string;
    toleranceSeconds: number | undefined;
  };
  maxBodyKb: number | undefined;
  idempotency: string;
  idHeader: string;
  /** Webhooks: accept a JSON content type with an empty body (refused with 400 otherwise). */
  allowEmptyBody: boolean;
  rateLimit: { perMinute: number | undefined; burst: number | undefined };
  mode: string;
  syncTimeoutSeconds: number | undefined;
  cron: string;
  /** Schedules: an override of the workflow's zone; blank = inherit the workflow's. */
  timezone: string;
  misfire: string;
  catchUpWindowMinutes: number | undefined;
  overlap: string;
  event: string;
  /** JSON condition text (events; webhooks: deliveries it rejects are skipped). */
  filter: string;
  /** Webhooks: header name → exact value, as JSON object text; blank = any headers. */
  requireHeaders: string;
  /** Webhooks: the source of the run's repository ref (`$.after`); blank = the definition's. */
  repositoryRef: string;
  /** Static input: JSON object text. */
  input: string;
  mapping: MappingRow[];
}

const text = (x: unknown, fallback = "") => (x === undefined || x === null ? fallback : String(x));
const number = (x: unknown, fallback: number) => (typeof x === "number" ? x : fallback);

/**
 * Form values for a new trigger (`config` empty) or an existing one. A new schedule's zone is
 * blank — it follows the workflow's — never the browser's zone.
 */
export function initialValues(kind: TriggerKind, name: string, config: unknown): TriggerFormValues {
  const c = (config ?? {}) as Record<string, unknown>;
  const v = (c.verification ?? {}) as Record<string, unknown>;
  const rl = (c.rateLimit ?? {}) as Record<string, unknown>;
  return {
    name,
    path: "",
    method: text(c.method, "POST"),
    verification: {
      preset: text(v.preset, "hmac"),
      header: text(v.header, "X-Signature"),
      prefix: text(v.prefix, "sha256="),
      encoding: text(v.encoding, "hex"),
      timestampHeader: text(v.timestampHeader),
      toleranceSeconds: number(v.toleranceSeconds, 300),
    },
    maxBodyKb: typeof c.maxBodyBytes === "number" && c.maxBodyBytes ? c.maxBodyBytes / 1024 : 1024,
    idempotency: text(c.idempotency, "delivery_id"),
    idHeader: text(c.idHeader, "Idempotency-Key"),
    allowEmptyBody: c.allowEmptyBody === true,
    rateLimit: { perMinute: number(rl.perMinute, 120), burst: number(rl.burst, 30) },
    mode: text(c.mode, "async"),
    syncTimeoutSeconds: number(c.syncTimeoutSeconds, 10),
    cron: text(c.cron, kind === "schedule" ? "0 9 * * 1-5" : ""),
    timezone: text(c.timezone),
    misfire: text(c.misfire, "skip"),
    catchUpWindowMinutes: number(c.catchUpWindowMinutes, 60),
    overlap: text(c.overlap, "skip"),
    event: text(c.event),
    filter: prettyJson(c.filter),
    requireHeaders: prettyJson(c.requireHeaders),
    repositoryRef: text(c.repositoryRef),
    input: prettyJson(c.input),
    mapping: mappingToRows(c.mapping),
  };
}

interface FieldProblem {
  path: (string | number)[];
  message: string;
}

/** The kind's config from the form values; text that cannot become config is a problem. */
export function toConfig(
  kind: TriggerKind,
  f: TriggerFormValues,
): { config: Record<string, unknown>; problems: FieldProblem[] } {
  const problems: FieldProblem[] = [];
  const input = parseJsonObject(f.input);
  if (!input.ok) problems.push({ path: ["input"], message: input.error });
  const staticInput = input.ok ? (input.value ?? {}) : {};
  const mapping = rowsToMapping(f.mapping);
  if (f.mapping.some((r) => r.source.trim() && !r.name.trim()))
    problems.push({ path: ["mapping"], message: "Every mapped source needs an input name" });
  const filter = parseJsonObject(f.filter);
  if (!filter.ok) problems.push({ path: ["filter"], message: filter.error });
  const withFilter = filter.ok && filter.value ? { filter: filter.value } : {};
  switch (kind) {
    case "webhook": {
      const v = f.verification;
      const requireHeaders = parseJsonObject(f.requireHeaders);
      if (!requireHeaders.ok)
        problems.push({ path: ["requireHeaders"], message: requireHeaders.error });
      // The generic HMAC fields (and the delivery id header) are hidden for the other presets:
      // they are not sent either, so a leftover value there can never block saving.
      const isHmac = v.preset === "hmac";
      return {
        problems,
        config: {
          method: f.method,
          verification: {
            preset: v.preset,
            ...(isHmac
              ? {
                  header: v.header.trim(),
                  prefix: v.prefix,
                  encoding: v.encoding,
                  ...(v.timestampHeader.trim()
                    ? { timestampHeader: v.timestampHeader.trim() }
                    : {}),
                }
              : {}),
            toleranceSeconds: v.toleranceSeconds,
          },
          maxBodyBytes: f.maxBodyKb === undefined ? undefined : Math.round(f.maxBodyKb * 1024),
          mapping,
          input: staticInput,
          ...(requireHeaders.ok && requireHeaders.value
            ? { requireHeaders: requireHeaders.value }
            : {}),
          ...withFilter,
          ...(f.repositoryRef.trim() ? { repositoryRef: f.repositoryRef.trim() } : {}),
          allowEmptyBody: f.allowEmptyBody,
          idempotency: f.idempotency,
          ...(isHmac ? { idHeader: f.idHeader.trim() } : {}),
          rateLimit: { perMinute: f.rateLimit.perMinute, burst: f.rateLimit.burst },
          mode: f.mode,
          syncTimeoutSeconds: f.syncTimeoutSeconds,
        },
      };
    }
    case "schedule":
      return {
        problems,
        config: {
          cron: f.cron,
          ...(f.timezone.trim() ? { timezone: f.timezone.trim() } : {}),
          misfire: f.misfire,
          catchUpWindowMinutes: f.catchUpWindowMinutes,
          overlap: f.overlap,
          input: staticInput,
        },
      };
    case "event": {
      return {
        problems,
        config: {
          event: f.event.trim(),
          ...withFilter,
          mapping,
          input: staticInput,
        },
      };
    }
  }
}

export type TriggerTarget =
  { type: "create"; workflowId: string } | { type: "edit"; triggerId: string };

export type TriggerSubmission =
  | { type: "create"; input: z.output<typeof CreateTriggerInput> }
  | { type: "edit"; input: { triggerId: string; name: string; config: Record<string, unknown> } };

/**
 * Values → what the create/update mutation takes. Problems are reported in order of precedence
 * (the first message per field wins): the form's own (JSON text, mapping rows, a blank name),
 * then the config schema, then the create input schema (which adds `path` and `name` rules).
 */
export function triggerFormSchema(kind: TriggerKind, target: TriggerTarget) {
  return z.custom<TriggerFormValues>().transform((values, ctx): TriggerSubmission => {
    const add = (p: FieldProblem) => ctx.addIssue({ code: "custom", ...p });
    const built = toConfig(kind, values);
    built.problems.forEach(add);
    if (!values.name.trim()) add({ path: ["name"], message: "Give the trigger a name" });
    const config = configSchemaFor(kind).safeParse(built.config);
    if (!config.success)
      config.error.issues.forEach((i) => add({ path: i.path.map(key), message: i.message }));
    if (target.type === "edit") {
      if (built.problems.length || !config.success || !values.name.trim()) return z.NEVER;
      return {
        type: "edit",
        input: { triggerId: target.triggerId, name: values.name, config: built.config },
      };
    }
    const create = CreateTriggerInput.safeParse({
      kind,
      workflowId: target.workflowId,
      name: values.name,
      ...(kind === "webhook" && values.path.trim() ? { path: values.path.trim() } : {}),
      config: built.config,
    });
    if (!create.success)
      create.error.issues.forEach((i) => add({ path: i.path.map(key), message: i.message }));
    if (built.problems.length || !config.success || !create.success || !values.name.trim())
      return z.NEVER;
    return { type: "create", input: create.data };
  });
}

const key = (k: PropertyKey) => (typeof k === "number" ? k : String(k));

/** Error keys shown next to a field; anything else goes into the summary under the form. */
export const PLACED_FIELDS = [
  "name",
  "path",
  "method",
  "verification.preset",
  "verification.header",
  "verification.prefix",
  "verification.encoding",
  "verification.timestampHeader",
  "verification.toleranceSeconds",
  "maxBodyKb",
  "idempotency",
  "idHeader",
  "allowEmptyBody",
  "rateLimit.perMinute",
  "rateLimit.burst",
  "mode",
  "syncTimeoutSeconds",
  "mapping",
  "input",
  "cron",
  "timezone",
  "misfire",
  "catchUpWindowMinutes",
  "overlap",
  "event",
  "filter",
  "requireHeaders",
  "repositoryRef",
] as const;

/**
 * Where the issues of this form land: the server reports config paths (`config.cron`), a
 * client-side parse bare ones (`cron`) — both reach the same field; the body limit is edited in
 * KiB; mapping and filter entries fold onto their editor.
 */
export const TRIGGER_ISSUE_OPTIONS: MapIssuesOptions = {
  within: [["config"], []],
  fields: PLACED_FIELDS,
  alias: { maxBodyBytes: "maxBodyKb" },
};

export type TriggerControl = Control<TriggerFormValues, unknown, TriggerSubmission>;
