/**
 * Event names and payloads Sluice's Inngest functions use. Internal names live under `sluice/`;
 * workflow events (emit_event steps, the events API, system events) travel as
 * `sluice/workflow.event` with the workspace and the event's own name in `data`.
 */
import { z } from "zod";

export const EVENTS = {
  runStart: "sluice/run.start",
  runCancel: "sluice/run.cancel",
  approvalDecided: "sluice/approval.decided",
  taskFinished: "sluice/task.finished",
  workflowEvent: "sluice/workflow.event",
  proposalDryRunRequested: "proposal/dry-run.requested",
  alertDeliver: "sluice/alert.deliver",
  proposalShadowRun: "sluice/proposal.shadow-run",
} as const;

/** The function that drives a run (subworkflow steps invoke it by this id). */
export const RUN_WORKFLOW_FUNCTION_ID = "run-workflow";

export const RunStartData = z.object({ runId: z.string(), workspaceId: z.string() });
export type RunStartData = z.infer<typeof RunStartData>;

export const RunCancelData = z.object({
  runId: z.string(),
  workspaceId: z.string(),
  reason: z.string().optional(),
});
export type RunCancelData = z.infer<typeof RunCancelData>;

/** A finished run to replay onto the open proposals on its version (sent only when one exists). */
export const ProposalShadowRunData = z.object({ runId: z.string(), workspaceId: z.string() });
export type ProposalShadowRunData = z.infer<typeof ProposalShadowRunData>;

export const ApprovalDecidedData = z.object({
  approvalId: z.string(),
  runId: z.string(),
  decision: z.enum(["approved", "rejected"]),
});
export type ApprovalDecidedData = z.infer<typeof ApprovalDecidedData>;

export const TaskFinishedData = z.object({
  taskId: z.string(),
  runId: z.string(),
  status: z.enum(["completed", "failed"]),
});
export type TaskFinishedData = z.infer<typeof TaskFinishedData>;

export const WorkflowEventData = z.object({
  workspaceId: z.string(),
  /** The workflow-level event name, e.g. `order.paid` or `run.completed`. */
  name: z.string(),
  eventId: z.string(),
  data: z.unknown(),
});
export type WorkflowEventData = z.infer<typeof WorkflowEventData>;

/** Replays recent runs through a proposal's definition; `request` discards stale requests. */
export const ProposalDryRunRequestedData = z.object({
  proposalId: z.string(),
  workspaceId: z.string(),
  request: z.number().int(),
});
export type ProposalDryRunRequestedData = z.infer<typeof ProposalDryRunRequestedData>;

/** Sends one recorded alert to its channels (server/services/alerts/deliver-alert.ts). */
export const AlertDeliverData = z.object({ alertId: z.string(), workspaceId: z.string() });
export type AlertDeliverData = z.infer<typeof AlertDeliverData>;
