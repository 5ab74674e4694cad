import { z } from "zod";
import { RunLimits } from "@/lib/workflow/run-limits";
import { RepositoryOverride } from "@/lib/workflow/repository";

export const TRIGGER_TYPES = [
  "manual",
  "api",
  "schedule",
  "webhook",
  "event",
  "rerun",
  "subworkflow",
  "recording",
] as const;
export const TriggerType = z.enum(TRIGGER_TYPES);
export type TriggerType = z.infer<typeof TriggerType>;

export const INITIATOR_TYPES = [
  "user",
  "token",
  "schedule",
  "webhook",
  "event",
  "run",
  "system",
] as const;
export const InitiatorType = z.enum(INITIATOR_TYPES);
export type InitiatorType = z.infer<typeof InitiatorType>;

export const APPROVAL_STATUSES = [
  "pending",
  "approved",
  "rejected",
  "expired",
  "cancelled",
] as const;
export const ApprovalStatus = z.enum(APPROVAL_STATUSES);
export type ApprovalStatus = z.infer<typeof ApprovalStatus>;

const id = z.string().min(1).max(64);

/** The largest `trigger` a caller may attach to a run, as UTF-8 JSON text. */
export const RUN_TRIGGER_MAX_BYTES = 16 * 1024;

/**
 * What started the run, as the caller describes it (the CLI's RFC §6.5 `trigger`: a scheduler's
 * tick, a CI job, a retry attempt). Kept with `input` as the run's trigger payload, so templates
 * read it as `{{ trigger.<key> }}`; the run's trigger type stays `api`/`manual` — a caller cannot
 * claim to be a webhook or a schedule.
 */
export const RunTriggerMetadata = z
  .record(z.string(), z.unknown())
  .superRefine((t, ctx) => {
    if (Object.hasOwn(t, "input"))
      ctx.addIssue({
        code: "custom",
        path: ["input"],
        message: "trigger.input is reserved: the run's input goes in `input`",
      });
    const bytes = new TextEncoder().encode(JSON.stringify(t)).length;
    if (bytes > RUN_TRIGGER_MAX_BYTES)
      ctx.addIssue({
        code: "custom",
        message: `trigger may be at most ${RUN_TRIGGER_MAX_BYTES} bytes of JSON, got ${bytes}`,
      });
  })
  .describe(
    "What started the run, as the caller describes it; kept with `input` as the run's trigger payload (`{{ trigger.<key> }}`). At most 16 KiB of JSON; `input` is reserved.",
  );
export type RunTriggerMetadata = z.infer<typeof RunTriggerMetadata>;

/** A manual/API run's trigger payload: the caller's trigger metadata, and the input it was given. */
export function apiTriggerPayload(
  input: Record<string, unknown>,
  trigger: RunTriggerMetadata | undefined,
): Record<string, unknown> {
  return { ...trigger, input };
}

export const StartRunInput = z.object({
  workflowId: id,
  input: z.record(z.string(), z.unknown()).default({}),
  /** A client-generated request id: repeating it returns the same run (double clicks, retries). */
  idempotencyKey: z.string().min(1).max(200).optional(),
  /** A version id; default the current published version. */
  versionId: id.optional(),
  /** Tighter limits for this run only (never looser than the definition's constraints). */
  limits: RunLimits.optional(),
  /** Another ref (or URL and ref) for the workflow's repository; manual runs only. */
  repository: RepositoryOverride.optional(),
  trigger: RunTriggerMetadata.optional(),
});
export type StartRunInput = z.input<typeof StartRunInput>;

/**
 * Inline runs have no workflow or version: these labels stand in for the workflow's name and the
 * version number (runs list, run page, system events, the CLI).
 */
export const INLINE_WORKFLOW_NAME = "inline";
export const INLINE_VERSION = "inline";
/** The version label of an editor test run (its workflow's draft, docs/runs.md "Testing while building"). */
export const TEST_VERSION = "draft";
/** What the UI shows where a workflow's name would be, for rows of an inline run (gates, tasks). */
export const INLINE_RUN_LABEL = "Inline run";

/**
 * The workflow column of a gate or task row: its workflow's name, or INLINE_RUN_LABEL when the
 * run is inline (workflowId null; absent = not known here) — the row's run link is the link.
 */
export function workflowLabel(row: {
  workflowId?: string | null;
  workflowName?: string | null;
}): string {
  return row.workflowId === null ? INLINE_RUN_LABEL : (row.workflowName ?? "Workflow");
}

/** An inline run: an unsaved definition, validated and snapshotted like a published version. */
export const StartInlineRunInput = z.object({
  /** A workflow definition (the same JSON a version stores); validated by the service. */
  definition: z.record(z.string(), z.unknown()),
  input: z.record(z.string(), z.unknown()).default({}),
  idempotencyKey: z.string().min(1).max(200).optional(),
  limits: RunLimits.optional(),
  trigger: RunTriggerMetadata.optional(),
});
export type StartInlineRunInput = z.input<typeof StartInlineRunInput>;

export const RunRef = z.object({ runId: id });
export type RunRef = z.infer<typeof RunRef>;

export const CancelRunInput = z.object({ runId: id, reason: z.string().max(500).optional() });
export type CancelRunInput = z.infer<typeof CancelRunInput>;

export const RerunInput = z.object({
  runId: id,
  /** Rerun from this step: earlier steps' outputs are reused. Omitted = the whole run. */
  fromStepId: z.string().max(64).optional(),
  /** `pinned` (default): the run's own version; `current`: the workflow's current version. */
  version: z.enum(["pinned", "current"]).default("pinned"),
  /** Replaces the input (default: the original run's input). */
  input: z.record(z.string(), z.unknown()).optional(),
  idempotencyKey: z.string().min(1).max(200).optional(),
});
export type RerunInput = z.input<typeof RerunInput>;

export const RUN_LIST_STATUSES = [
  "queued",
  "running",
  "waiting",
  "cancel_requested",
  "completed",
  "failed",
  "cancelled",
  "timed_out",
] as const;
export const ListRunsInput = z.object({
  workflowId: id.optional(),
  /** Only inline runs (unsaved definitions, no workflow). */
  inline: z.boolean().optional(),
  status: z.array(z.enum(RUN_LIST_STATUSES)).max(8).optional(),
  trigger: TriggerType.optional(),
  from: z.coerce.date().optional(),
  to: z.coerce.date().optional(),
  /** Only runs with a step attempt that failed and is being retried. */
  retrying: z.boolean().optional(),
  /** Only runs waiting for longer than this many minutes. */
  waitingLongerThanMinutes: z.number().int().min(1).max(525_600).optional(),
  /** Editor test runs (docs/runs.md "Testing while building"): hidden by default. */
  tests: z.enum(["exclude", "include", "only"]).default("exclude"),
  limit: z.number().int().min(1).max(200).default(50),
  cursor: z.string().max(200).optional(),
});
export type ListRunsInput = z.input<typeof ListRunsInput>;

export const DecideApprovalInput = z.object({
  approvalId: id,
  /** When given, the approval must belong to this run. */
  runId: id.optional(),
  approve: z.boolean(),
  reason: z.string().trim().max(2_000).default(""),
  /** Required through the HTTP API and CLI; the UI passes the one it was shown. */
  resumeToken: z.string().max(500).optional(),
  /** The gate's form values (field name → value); checked against its form when approving, ignored when rejecting. */
  form: z.record(z.string(), z.unknown()).optional(),
});
export type DecideApprovalInput = z.input<typeof DecideApprovalInput>;

export const APPROVAL_SORTS = ["expires", "priority", "due", "newest"] as const;

export const ListApprovalsInput = z.object({
  scope: z.enum(["mine", "all"]).default("mine"),
  status: z.enum(["pending", "decided"]).default("pending"),
  /** Pending lists: soonest expiry (default), highest priority, soonest due, or newest first. */
  sort: z.enum(APPROVAL_SORTS).default("expires"),
  /** One approval (the inbox's deep link /approvals?open=<id>). */
  approvalId: z.string().min(1).max(64).optional(),
  limit: z.number().int().min(1).max(200).default(50),
});
export type ListApprovalsInput = z.input<typeof ListApprovalsInput>;
