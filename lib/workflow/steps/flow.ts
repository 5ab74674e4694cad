/**
 * Configs of the steps that start or change workflows or send messages: subworkflow, notify and
 * propose_change, plus the loop limits and the workflow and version references loops share.
 */
import { z } from "zod";
import { hasTemplate } from "../templates";
import { jsonValue, literalHttpUrlProblem, templateString } from "../primitives";
import { configIssue, crossRule, exactlyOne } from "./rules";

// --- loop / subworkflow ----------------------------------------------------------------------

export const LOOP_MAX_CONCURRENCY = 20;
/** Most iterations a loop runs (items, or batches with `batchSize`). */
export const LOOP_MAX_ITEMS = 1000;
export const LOOP_MAX_BATCH_SIZE = 1000;
/** maxItems with a batchSize: the items may outnumber the iterations, up to this. */
export const LOOP_MAX_BATCHED_ITEMS = 100_000;

export const WorkflowRef = z
  .string()
  .min(1)
  .max(200)
  .regex(/^([A-Za-z0-9][A-Za-z0-9_-]*|\{\{.*\}\})$/, {
    message: "Write a workflow id (wf_…) or slug (letters, digits, - and _), or a template.",
  })
  .describe("Workflow id (wf_…) or slug.");
export const VersionRef = z
  .string()
  .regex(/^(\d+\.\d+\.\d+|latest|\{\{.*\}\})$/, {
    message: 'Versions are semver like "1.4.0", or "latest".',
  })
  .describe('Published version to run ("1.4.0"); the latest published version when omitted.');

export const SubworkflowConfig = z.strictObject({
  workflow: WorkflowRef,
  version: VersionRef.optional(),
  input: jsonValue("Input for the child run; templates allowed.").default({}),
});

export const NOTIFY_CHANNELS = ["slack", "webhook", "email"] as const;

export const NotifyConfig = z
  .strictObject({
    channel: z
      .enum(NOTIFY_CHANNELS)
      .describe("slack: incoming webhook URL; webhook: any URL (JSON POST); email: an address."),
    target: templateString(
      "Where to send: the webhook URL or the email address. May use {{ secrets.NAME }} (Slack webhook URLs are secrets).",
      2048,
    ),
    message: templateString("Message text; templates allowed."),
    subject: z.string().max(998).optional().describe("Email subject (email only)."),
  })
  .superRefine(
    ...crossRule((config, ctx) => {
      const { channel, target } = config;
      if (config.subject !== undefined && channel !== "email")
        configIssue(
          ctx,
          ["subject"],
          `"subject" is only used by the email channel, not ${String(channel)}.`,
        );
      if (
        typeof target !== "string" ||
        target === "" ||
        hasTemplate(target) ||
        !(NOTIFY_CHANNELS as readonly unknown[]).includes(channel)
      )
        return;
      if (channel === "email" && !/^[^\s@]+@[^\s@]+\.[^\s@]+$/.test(target))
        configIssue(ctx, ["target"], `"${target}" is not an email address.`);
      const problem = channel !== "email" ? literalHttpUrlProblem(target) : null;
      if (problem) configIssue(ctx, ["target"], problem);
    }),
  );

export const PATCH_OPS = ["add", "remove", "replace", "move", "copy", "test"] as const;
export const PatchOperation = z
  .strictObject({
    op: z.enum(PATCH_OPS),
    path: z
      .string()
      .regex(/^(\/([^~/]|~[01])*)*$/, { message: 'A JSON Pointer such as "/steps/0/config/url".' }),
    from: z
      .string()
      .regex(/^(\/([^~/]|~[01])*)*$/, { message: "A JSON Pointer." })
      .optional(),
    value: jsonValue("Value for add, replace and test.").optional(),
  })
  .superRefine(
    ...crossRule((op, ctx) => {
      const needsValue = op.op === "add" || op.op === "replace" || op.op === "test";
      const needsFrom = op.op === "move" || op.op === "copy";
      if (needsValue && op.value === undefined)
        configIssue(ctx, ["value"], `A "${String(op.op)}" operation needs "value".`);
      if (needsFrom && op.from === undefined)
        configIssue(ctx, ["from"], `A "${String(op.op)}" operation needs "from".`);
    }),
  );

const RawTemplate = z.string().regex(/^\{\{[^{}]*\}\}$/, {
  message: 'Write a single template such as "{{ steps.plan.output.data }}", or a literal value.',
});

export const ProposeChangeConfig = z
  .strictObject({
    definition: z
      .union([RawTemplate, z.record(z.string(), jsonValue("Definition member"))])
      .optional()
      .describe(
        "The full proposed definition, or one template yielding it (e.g. from an llm step). Templates inside a literal definition are kept as written.",
      ),
    patch: z
      .union([RawTemplate, z.array(PatchOperation).min(1).max(1000)])
      .optional()
      .describe("An RFC 6902 patch against the current definition, or one template yielding it."),
    summary: templateString("One-line summary shown to reviewers.", 500),
    rationale: z
      .string()
      .max(20_000)
      .optional()
      .describe("Why the change is proposed; templates allowed."),
  })
  .superRefine(
    ...crossRule((config, ctx) => exactlyOne(config, ctx, "definition", "patch", "A proposal")),
  );
