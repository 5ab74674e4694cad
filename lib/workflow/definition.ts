/**
 * The workflow definition schema (`schemaVersion: 1`, SPEC §3) — the only persisted shape of a
 * workflow. `WorkflowDefinition.parse` checks structure and every step's config (through the
 * catalog's config schemas) and fills per-field defaults; graph rules (ids, edges, cycles,
 * references, policy) live in validate.ts, which also fills each edge's `port` (its default
 * depends on the source step's type, so a field default cannot express it).
 */
import { z } from "zod";
import { isJsonValue } from "./json";
import { identifier, jsonValue } from "./primitives";
import { RepositorySpec } from "./repository";
import { Edge, Step, STEP_TYPES } from "./steps";

export const SCHEMA_VERSION = 1;
/** Hard cap on steps per definition, loop bodies included (SPEC §3 `maxSteps`). */
export const MAX_STEPS_HARD_CAP = 1000;
export const DEFAULT_MAX_STEPS = 50;
export const MAX_PARALLEL_CAP = 32;

export const INPUT_TYPES = ["string", "number", "boolean", "object", "array"] as const;
export const InputType = z.enum(INPUT_TYPES);
export type InputType = z.infer<typeof InputType>;

/** Whether a value has the JSON type an input declares (numbers must be finite). */
export function matchesInputType(type: InputType, value: unknown): boolean {
  switch (type) {
    case "string":
      return typeof value === "string";
    case "number":
      return typeof value === "number" && Number.isFinite(value);
    case "boolean":
      return typeof value === "boolean";
    case "array":
      return Array.isArray(value) && isJsonValue(value);
    case "object":
      return (
        typeof value === "object" && value !== null && !Array.isArray(value) && isJsonValue(value)
      );
  }
}

export const InputSpec = z
  .strictObject({
    type: InputType.describe("JSON type of the input."),
    required: z
      .boolean()
      .default(false)
      .describe("A run cannot start without it (unless it has a default)."),
    default: jsonValue("Value used when the input is not given.").optional(),
    description: z.string().max(2_000).optional().describe("Help text shown on the run form."),
    enum: z
      .array(jsonValue("Allowed value"))
      .min(1)
      .max(500)
      .optional()
      .describe("Allowed values (shown as a select)."),
  })
  .superRefine((spec, ctx) => {
    if (spec.default !== undefined && !matchesInputType(spec.type, spec.default)) {
      ctx.addIssue({
        code: "custom",
        path: ["default"],
        message: `The default must be of type ${spec.type}.`,
      });
    }
    spec.enum?.forEach((value, i) => {
      if (!matchesInputType(spec.type, value))
        ctx.addIssue({
          code: "custom",
          path: ["enum", i],
          message: `Enum values must be of type ${spec.type}.`,
        });
    });
    if (
      spec.default !== undefined &&
      spec.enum &&
      !spec.enum.some((v) => JSON.stringify(v) === JSON.stringify(spec.default))
    ) {
      ctx.addIssue({
        code: "custom",
        path: ["default"],
        message: "The default must be one of the enum values.",
      });
    }
  });
export type InputSpec = z.infer<typeof InputSpec>;

export const OVERFLOW_POLICIES = ["queue", "skip", "coalesce"] as const;

export const Constraints = z
  .strictObject({
    allowSelfModification: z
      .boolean()
      .default(false)
      .describe("Whether change proposals (incl. propose_change steps) are allowed."),
    maxSteps: z
      .int()
      .min(1)
      .max(MAX_STEPS_HARD_CAP)
      .default(DEFAULT_MAX_STEPS)
      .describe(
        "Executed step attempts per run (hard cap 1000); also caps the number of defined steps.",
      ),
    timeoutMs: z
      .int()
      .min(1_000)
      .max(366 * 86_400_000)
      .default(3_600_000)
      .describe("Run deadline in ms (default 1 h); the run ends timed_out."),
    maxParallel: z
      .int()
      .min(1)
      .max(MAX_PARALLEL_CAP)
      .default(4)
      .describe("Steps running at the same time inside one run (default 4, max 32)."),
    forbiddenStepTypes: z
      .array(z.enum(STEP_TYPES))
      .default([])
      .describe("Step types this workflow may never use; checked on publish and proposal apply."),
    maxConcurrentRuns: z
      .int()
      .min(1)
      .max(1_000)
      .default(10)
      .describe("Active (running or waiting) runs of this workflow at once (default 10)."),
    overflow: z
      .enum(OVERFLOW_POLICIES)
      .default("queue")
      .describe(
        "When maxConcurrentRuns is reached: queue (FIFO, default), skip the new run, or coalesce into the newest queued run.",
      ),
  })
  .describe("Limits and policy.");
export type Constraints = z.infer<typeof Constraints>;

const timezoneCache = new Map<string, boolean>();
/** Valid IANA zone per the runtime's Intl data (same answer in browsers and Node with full ICU). */
export function isValidTimezone(zone: string): boolean {
  const known = timezoneCache.get(zone);
  if (known !== undefined) return known;
  let valid: boolean;
  try {
    new Intl.DateTimeFormat("en-US", { timeZone: zone });
    valid = zone.length <= 64;
  } catch {
    valid = false;
  }
  timezoneCache.set(zone, valid);
  return valid;
}

export const Timezone = z
  .string()
  .refine(isValidTimezone, {
    message: 'Not an IANA time zone; write e.g. "UTC", "Europe/Paris" or "America/New_York".',
  })
  .describe('IANA time zone used by schedules (default "UTC").');

export const Layout = z
  .looseObject({
    positions: z
      .record(z.string(), z.looseObject({ x: z.number(), y: z.number() }))
      .optional()
      .describe("Node positions by step id."),
    viewport: z.looseObject({ x: z.number(), y: z.number(), zoom: z.number() }).optional(),
  })
  .describe("Editor layout; excluded from the hash and from diffs.");
export type Layout = z.infer<typeof Layout>;

export const WorkflowDefinition = z
  .strictObject({
    schemaVersion: z.literal(SCHEMA_VERSION).describe("Definition format version; always 1."),
    name: z
      .string()
      .trim()
      .min(1, { message: "The workflow needs a name." })
      .max(200)
      .describe("Workflow name."),
    description: z.string().max(10_000).optional().describe("What the workflow does."),
    inputs: z
      .record(identifier("Input"), InputSpec)
      .default({})
      .describe("Run inputs, referenced as {{ input.<name> }}."),
    variables: z
      .record(identifier("Variable"), jsonValue("Constant value."))
      .default({})
      .describe("Constants, referenced as {{ vars.<name> }}."),
    constraints: Constraints.prefault({}),
    timezone: Timezone.default("UTC"),
    repository: RepositorySpec.optional(),
    steps: z
      .array(Step)
      .max(MAX_STEPS_HARD_CAP, { message: `A definition has at most ${MAX_STEPS_HARD_CAP} steps.` })
      .describe("The steps. Without edges they run in array order."),
    edges: z
      .array(Edge)
      .max(10_000)
      .optional()
      .describe("Edges between steps; omitted = array order, [] = no dependencies."),
    output: jsonValue(
      "The run's output, usually a template such as {{ steps.deploy.output.data }}; null when omitted (a return step overrides it).",
    ).optional(),
    layout: Layout.optional(),
  })
  .describe("A Sluice workflow definition.");

/** A parsed definition: defaults filled in. */
export type WorkflowDefinition = z.infer<typeof WorkflowDefinition>;
/** The authoring shape: what a person or an agent writes (defaults optional). */
export type WorkflowDefinitionInput = z.input<typeof WorkflowDefinition>;

export const TOP_LEVEL_KEYS = Object.keys(WorkflowDefinition.shape);
