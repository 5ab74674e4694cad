/**
 * The workflow definition schema (`schemaVersion: 1`, SPEC §3) — the only persisted shape of a
 * workflow. `WorkflowDefinition.parse` checks structure and every step's config (through the
 * catalog's config schemas) and fills per-field defaults; graph rules (ids, edges, cycles,
 * references, policy) live in validate.ts, which also fills each edge's `port` (its default
 * depends on the source step's type, so a field default cannot express it).
 */
import { z } from "zod";
import { plainText } from "../schemas/text";
import { identifier, jsonValue } from "./primitives";
import { InputSpec } from "./input-spec";
import { RepositorySpec } from "./repository";
import { Edge, Step, STEP_TYPES } from "./steps";

export const SCHEMA_VERSION = 1;
/** Hard cap on steps per definition, loop bodies included (SPEC §3 `maxSteps`). */
export const MAX_STEPS_HARD_CAP = 1000;
export const DEFAULT_MAX_STEPS = 50;
export const MAX_PARALLEL_CAP = 32;

// The field shape of `inputs` lives in input-spec.ts so step configs (task outputSchema) can use it.
export { INPUT_TYPES, InputSpec, InputType, matchesInputType } from "./input-spec";

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
    name: plainText(
      z.string().trim().min(1, { message: "The workflow needs a name." }).max(200),
    ).describe("Workflow name."),
    description: plainText(z.string().max(10_000), { multiline: true })
      .optional()
      .describe("What the workflow does."),
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
