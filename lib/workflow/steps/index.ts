/**
 * Zod schemas of steps, edges and every step type's config (SPEC §4). Client-safe; catalog.ts adds
 * the editor metadata. Configs are strict objects: a typo such as "metod" is an error, not a
 * silently ignored key. Cross-field rules (exactly one of A or B, quorum vs approvers, …) are
 * refinements so the config schema alone validates an inspector form.
 *
 * This file holds steps, edges, retries and loops (recursive through loop bodies); the per-type
 * configs live beside it, grouped by kind of step, and are re-exported here.
 */
import { z } from "zod";
import { Condition } from "../conditions";
import { isPlainObject } from "../json";
import { jsonValue, StepId } from "../primitives";
import { type Ctx, type Loose, configIssue, crossRule, fieldRule, exactlyOne } from "./rules";
import { StepType } from "./types";
import {
  TransformConfig,
  ConditionConfig,
  ReturnConfig,
  HttpConfig,
  ScriptConfig,
  CodeConfig,
} from "./actions";
import { LlmConfig, AgentConfig, ToolConfig } from "./ai";
import {
  ApprovalConfig,
  TaskConfig,
  DelayConfig,
  WaitForEventConfig,
  EmitEventConfig,
} from "./human";
import {
  LOOP_MAX_CONCURRENCY,
  LOOP_MAX_ITEMS,
  LOOP_MAX_BATCH_SIZE,
  LOOP_MAX_BATCHED_ITEMS,
  WorkflowRef,
  VersionRef,
  SubworkflowConfig,
  NotifyConfig,
  ProposeChangeConfig,
} from "./flow";

export * from "./types";
export * from "./actions";
export * from "./ai";
export * from "./human";
export * from "./flow";

// --- steps, edges, loop bodies (recursive) ---------------------------------------------------

export const EDGE_FAILURE_POLICIES = ["skip", "continue", "fail_run"] as const;
export const EdgeFailurePolicy = z.enum(EDGE_FAILURE_POLICIES);
export type EdgeFailurePolicy = z.infer<typeof EdgeFailurePolicy>;

export const PortName = z.string().regex(/^[a-z][a-z_]*$/, {
  message: "Ports are lower-case names such as success, error, true, approved.",
});

export const Edge = z.strictObject({
  from: StepId.describe("Source step id."),
  to: StepId.describe("Target step id."),
  port: PortName.optional().describe(
    "Output port of the source: success (default for most types), true/false (condition), approved/rejected (approval), done (loop), or error (runs only if the source failed, handling the failure). Defaults to the source type's primary port.",
  ),
  onFailure: EdgeFailurePolicy.default("skip").describe(
    "If the source fails: skip the target (default), continue (target runs and sees the source output as null; failure handled), or fail_run (the run fails at once).",
  ),
});
export type Edge = z.infer<typeof Edge>;
export type EdgeInput = z.input<typeof Edge>;

export const RETRY_MAX_ATTEMPTS = 10;
const BackoffMs = z.int().min(0).max(3_600_000);

export const Retry = z
  .strictObject({
    maxAttempts: z
      .int()
      .min(1)
      .max(RETRY_MAX_ATTEMPTS)
      .default(1)
      .describe(
        "Total attempts including the first (1 = no retry, max 10). Only retryable failures (network, 429, 5xx, timeouts) retry.",
      ),
    backoffMs: z
      .union([
        BackoffMs,
        z
          .array(BackoffMs)
          .min(1)
          .max(RETRY_MAX_ATTEMPTS - 1),
      ])
      .default(1000)
      .describe(
        "Delay before each retry: a fixed number of ms, or a list per retry (the last entry repeats); at least 1 s is waited between attempts.",
      ),
  })
  .describe("Retry policy.");
export type Retry = z.infer<typeof Retry>;

/** Delay before attempt `attempt` (2 = first retry). Arrays index per retry; the last repeats. */
export function backoffDelayMs(retry: Retry, attempt: number): number {
  if (attempt <= 1) return 0;
  if (typeof retry.backoffMs === "number") return retry.backoffMs;
  return retry.backoffMs[Math.min(attempt - 2, retry.backoffMs.length - 1)] ?? 0;
}

const stepBase = {
  id: StepId,
  name: z.string().min(1).max(200).optional().describe("Display name."),
  when: Condition.optional().describe(
    "Run only if this condition holds (else the step is skipped); the steps it references are waited for.",
  ),
  retry: Retry.prefault({}),
  timeoutMs: z
    .int()
    .min(1)
    .max(86_400_000)
    .optional()
    .describe("Deadline for each attempt in ms (non-waiting steps)."),
};

export const LoopConfig = z
  .strictObject({
    items: z
      .union([
        z
          .string()
          .superRefine(
            fieldRule((items) =>
              /^\s*\{\{[^{}]*\}\}\s*$/.test(items)
                ? null
                : 'items must be one template yielding an array (e.g. "{{ steps.list.output.data.items }}") or a literal array.',
            ),
          ),
        z.array(jsonValue("Item")),
      ])
      .describe(
        'The items: a template yielding an array (e.g. "{{ steps.list.output.data }}") or a literal array.',
      ),
    get body() {
      return LoopBody.optional().describe(
        "Steps run once per item (with loop.item, loop.index, loop.items, and loop.state or loop.batch when set). Exactly one of body or workflow.",
      );
    },
    workflow: WorkflowRef.optional().describe("Run this workflow once per item instead of a body."),
    version: VersionRef.optional(),
    input: jsonValue(
      'Child input per item (workflow loops); default { "item": …, "index": … }, or { "batch": […], "index": … } with a batchSize.',
    ).optional(),
    concurrency: z
      .int()
      .min(1)
      .max(LOOP_MAX_CONCURRENCY)
      .default(1)
      .describe("Iterations run at the same time (default 1, max 20)."),
    maxItems: z
      .int()
      .min(1)
      .max(LOOP_MAX_BATCHED_ITEMS)
      .default(100)
      .describe(
        "More items than this fails the step (default 100; max 1000, or 1000 × batchSize up to 100,000 with a batchSize).",
      ),
    batchSize: z
      .int()
      .min(1)
      .max(LOOP_MAX_BATCH_SIZE)
      .optional()
      .describe(
        "Hand the body up to this many items at a time as loop.batch (loop.index is then the batch number); default: one item per iteration.",
      ),
    state: jsonValue(
      "Initial loop.state (templates allowed, resolved once when the loop starts); each iteration's stateFrom step output becomes the next state. Forces one iteration at a time.",
    ).optional(),
    stateFrom: StepId.optional().describe(
      "The body step whose output data becomes loop.state for the next iteration (and the loop's final meta.state).",
    ),
  })
  .superRefine(
    ...crossRule((config, ctx) => {
      exactlyOne(config, ctx, "body", "workflow", "A loop");
      loopStateRules(config, ctx);
      if (
        config.body !== undefined &&
        (config.version !== undefined || config.input !== undefined)
      ) {
        configIssue(
          ctx,
          [config.version !== undefined ? "version" : "input"],
          '"version" and "input" only apply to workflow loops.',
        );
      }
    }),
  );

/** The cross-field rules of a loop's accumulator and batches (docs/workflow-language.md §Loops). */
function loopStateRules(config: Loose, ctx: Ctx): void {
  const hasState = config.state !== undefined;
  if (hasState !== (config.stateFrom !== undefined))
    configIssue(
      ctx,
      [hasState ? "stateFrom" : "state"],
      hasState
        ? 'A loop with a "state" needs "stateFrom": the body step whose output becomes the next state.'
        : '"stateFrom" needs an initial "state" (e.g. { "total": 0 }).',
    );
  if (hasState && config.workflow !== undefined)
    configIssue(ctx, ["state"], '"state" and "stateFrom" only apply to loops with a body.');
  if (hasState && typeof config.concurrency === "number" && config.concurrency > 1)
    configIssue(
      ctx,
      ["concurrency"],
      `A loop with a "state" runs one iteration at a time (each one reads the state the previous one set); remove "concurrency" (got ${config.concurrency}).`,
    );
  const body = config.body;
  if (typeof config.stateFrom === "string" && isPlainObject(body) && Array.isArray(body.steps)) {
    const ids = body.steps.flatMap((s) =>
      isPlainObject(s) && typeof s.id === "string" ? [s.id] : [],
    );
    if (!ids.includes(config.stateFrom))
      configIssue(
        ctx,
        ["stateFrom"],
        `"stateFrom" names ${JSON.stringify(config.stateFrom)}, which is not a step of this loop's body (${ids.map((i) => JSON.stringify(i)).join(", ") || "none"}).`,
      );
  }
  const batch = typeof config.batchSize === "number" ? config.batchSize : 1;
  if (typeof config.maxItems === "number" && config.maxItems > LOOP_MAX_ITEMS * batch)
    configIssue(
      ctx,
      ["maxItems"],
      config.batchSize === undefined
        ? `maxItems is at most ${LOOP_MAX_ITEMS} (one iteration per item); set a batchSize to loop over more (got ${config.maxItems}).`
        : `maxItems ${config.maxItems} with batchSize ${batch} would run more than ${LOOP_MAX_ITEMS} iterations; raise batchSize to at least ${Math.ceil(config.maxItems / LOOP_MAX_ITEMS)} or lower maxItems.`,
    );
}

function stepOf<T extends StepType, C extends z.ZodType>(type: T, config: C) {
  return z.strictObject({
    ...stepBase,
    type: z.literal(type),
    config: config.prefault({} as z.input<C>),
  });
}

export const TransformStep = stepOf("transform", TransformConfig);
export const ConditionStep = stepOf("condition", ConditionConfig);
export const HttpStep = stepOf("http", HttpConfig);
export const ScriptStep = stepOf("script", ScriptConfig);
export const CodeStep = stepOf("code", CodeConfig);
export const LlmStep = stepOf("llm", LlmConfig);
export const AgentStep = stepOf("agent", AgentConfig);
export const ApprovalStep = stepOf("approval", ApprovalConfig);
export const DelayStep = stepOf("delay", DelayConfig);
export const WaitForEventStep = stepOf("wait_for_event", WaitForEventConfig);
export const EmitEventStep = stepOf("emit_event", EmitEventConfig);
export const LoopStep = stepOf("loop", LoopConfig);
export const SubworkflowStep = stepOf("subworkflow", SubworkflowConfig);
export const NotifyStep = stepOf("notify", NotifyConfig);
export const ProposeChangeStep = stepOf("propose_change", ProposeChangeConfig);
export const ReturnStep = stepOf("return", ReturnConfig);
export const TaskStep = stepOf("task", TaskConfig);
export const ToolStep = stepOf("tool", ToolConfig);

export const Step = z.discriminatedUnion("type", [
  TransformStep,
  ConditionStep,
  HttpStep,
  ScriptStep,
  CodeStep,
  LlmStep,
  AgentStep,
  ApprovalStep,
  DelayStep,
  WaitForEventStep,
  EmitEventStep,
  LoopStep,
  SubworkflowStep,
  NotifyStep,
  ProposeChangeStep,
  ReturnStep,
  TaskStep,
  ToolStep,
]);

export const LoopBody = z.strictObject({
  get steps() {
    return z.array(Step).min(1, { message: "A loop body needs at least one step." });
  },
  edges: z.array(Edge).optional().describe("Edges between body steps; omitted = array order."),
});

export type Step = z.infer<typeof Step>;
export type StepInput = z.input<typeof Step>;
export type LoopBody = z.infer<typeof LoopBody>;
export type StepOfType<T extends StepType> = Extract<Step, { type: T }>;
export type StepConfig<T extends StepType = StepType> = StepOfType<T>["config"];

/** True for a plain object whose `type` is a loop and that carries a body. */
export function hasLoopBody(
  step: unknown,
): step is { config: { body: { steps: unknown[]; edges?: unknown[] } } } {
  if (!isPlainObject(step) || step.type !== "loop" || !isPlainObject(step.config)) return false;
  const body = step.config.body;
  return isPlainObject(body) && Array.isArray(body.steps);
}
