import { z } from "zod";
import { TRIGGER_KINDS } from "@/lib/schemas/triggers";
import { VERSION_SOURCES } from "@/lib/schemas/workflows";
import { RUN_STATUSES } from "@/lib/workflow/status";

/** Path ids: the same bounds the service contracts use. */
export const Id = z.string().min(1).max(64);
export const IdParams = z.object({ id: Id.meta({ description: "The resource id" }) });

/** `{ error: { code, message, details } }`: every refusal of /api/v1 (SPEC §9). */
export const ErrorEnvelope = z
  .object({
    error: z.object({
      code: z
        .string()
        .meta({ description: "Stable, lower-case: validation, not_found, conflict…" }),
      message: z.string().meta({ description: "Safe to show; names the culprit" }),
      details: z
        .unknown()
        .optional()
        .meta({ description: "Validation: `{ issues: [{ path, message }] }`; others vary" }),
    }),
  })
  .meta({ id: "ErrorEnvelope" });

/** A JSON object whose shape is documented in docs/api.md rather than here. */
export const JsonObject = z.record(z.string(), z.unknown());

/** Cursor paging: pass `nextCursor` back as `?cursor=` until it is null. */
export function page(description: string) {
  return z.object({
    items: z.array(JsonObject).meta({ description }),
    nextCursor: z.string().nullable(),
  });
}

export const Limit = (max: number) => z.coerce.number().int().min(1).max(max).optional();
/** `true` / `false` (also `1`/`0`, `yes`/`no`) in a query string. */
export const QueryBool = z.stringbool().optional();

const Timestamp = z.iso.datetime({ offset: true });

/**
 * Response shapes of the main resources: the fields clients rely on. Open objects — responses
 * may carry more — and checked against real responses in app/api/v1/workflows/workflows-api.test.ts.
 */
export const WorkflowSummary = z
  .looseObject({
    id: z.string(),
    name: z.string(),
    slug: z.string(),
    description: z.string(),
    tags: z.array(z.string()),
    isEnabled: z.boolean(),
    updatedAt: Timestamp,
    currentVersion: z.string().nullable(),
    hasDraftChanges: z.boolean(),
    stepCount: z.number().int(),
  })
  .meta({ id: "WorkflowSummary" });

export const VersionSummary = z
  .looseObject({
    id: z.string(),
    version: z.string(),
    hash: z.string(),
    source: z.enum(VERSION_SOURCES),
    notes: z.string(),
    createdAt: Timestamp,
    isCurrent: z.boolean(),
  })
  .meta({ id: "VersionSummary" });

export const RunSummary = z
  .looseObject({
    id: z.string(),
    status: z.enum(RUN_STATUSES),
    workflowId: z.string().nullable(),
    workflowName: z.string().nullable(),
    version: z.string().nullable(),
    triggerType: z.string(),
    createdAt: Timestamp,
    startedAt: Timestamp.nullable(),
    finishedAt: Timestamp.nullable(),
    errorMessage: z.string().nullable(),
  })
  .meta({ id: "RunSummary" });

export const RunEvent = z
  .looseObject({
    id: z.number().int(),
    type: z.string(),
    stepPath: z.string().nullable(),
    data: z.unknown(),
    createdAt: Timestamp,
  })
  .meta({ id: "RunEvent" });

export const Trigger = z
  .looseObject({
    id: z.string(),
    workflowId: z.string(),
    kind: z.enum(TRIGGER_KINDS),
    name: z.string(),
    enabled: z.boolean(),
    config: JsonObject,
    path: z.string().nullable(),
    url: z.string().nullable(),
    createdAt: Timestamp,
    /** Reads: who the trigger's runs count against; a gone owner means runs are refused. */
    owner: z
      .object({
        userId: z.string().nullable(),
        name: z.string().nullable(),
        email: z.string().nullable(),
        status: z.enum(["member", "removed", "deleted"]),
        problem: z.string().nullable(),
      })
      .optional(),
    /** Reads, schedules: the zone they fire in — their own (`trigger`) or the workflow's. */
    schedule: z
      .object({
        timezone: z.string(),
        source: z.enum(["trigger", "workflow"]),
        workflowTimezone: z.string(),
      })
      .nullable()
      .optional(),
  })
  .meta({ id: "Trigger" });

export function pageOf<T extends z.ZodType>(item: T) {
  return z.object({ items: z.array(item), nextCursor: z.string().nullable() });
}
