import { z } from "zod";
import {
  AlertChannels,
  ALERT_KINDS,
  ALERT_STATUSES,
  UpdateWorkflowAlertsInput,
  WorkspaceAlertSettings,
} from "@/lib/schemas/alerts";
import { defineOperation } from "../operation";
import { Id, IdParams } from "./common";

const tag = "Alerts";
const Timestamp = z.iso.datetime({ offset: true });

/** Not exported: index.ts takes every export of this module for an operation. */
const WorkflowAlerts = z
  .object({
    workflowId: z.string(),
    channels: AlertChannels.nullable().meta({
      description: "The workflow's own channels; null: the workspace's defaults",
    }),
    errorWorkflowId: z.string().nullable(),
    workspaceChannels: AlertChannels,
    effectiveChannels: AlertChannels,
  })
  .meta({ id: "WorkflowAlerts" });

const Alert = z
  .object({
    id: z.string(),
    kind: z.enum(ALERT_KINDS),
    status: z.enum(ALERT_STATUSES),
    summary: z.string(),
    suppressedCount: z.number().int().meta({
      description: "Occurrences suppressed by the rate limit since the previous sent alert",
    }),
    workflowId: z.string().nullable(),
    runId: z.string().nullable(),
    triggerId: z.string().nullable(),
    attempts: z.number().int(),
    lastError: z.string().nullable(),
    createdAt: Timestamp,
    deliveredAt: Timestamp.nullable(),
  })
  .meta({ id: "Alert" });

export const getAlertSettingsOp = defineOperation({
  method: "GET",
  path: "/alerts/settings",
  operationId: "getAlertSettings",
  summary: "Get the workspace's alert defaults",
  description:
    "Channels used by workflows without their own, the rate-limit window, the gate age and the reject threshold.",
  tag,
  minRole: "viewer",
  responses: { 200: { description: "The defaults", schema: WorkspaceAlertSettings } },
});

export const updateAlertSettingsOp = defineOperation({
  method: "PUT",
  path: "/alerts/settings",
  operationId: "updateAlertSettings",
  summary: "Set the workspace's alert defaults",
  description:
    "Slack channels name a workspace secret holding the webhook URL; missing secrets are refused.",
  tag,
  minRole: "admin",
  body: WorkspaceAlertSettings.strict(),
  responses: { 200: { description: "The stored defaults", schema: WorkspaceAlertSettings } },
});

export const getWorkflowAlertsOp = defineOperation({
  method: "GET",
  path: "/workflows/{id}/alerts",
  operationId: "getWorkflowAlerts",
  summary: "Get a workflow's alert channels and error workflow",
  description: "With the workspace defaults it falls back to.",
  tag,
  minRole: "viewer",
  params: IdParams,
  responses: { 200: { description: "The settings", schema: WorkflowAlerts } },
});

export const updateWorkflowAlertsOp = defineOperation({
  method: "PUT",
  path: "/workflows/{id}/alerts",
  operationId: "updateWorkflowAlerts",
  summary: "Set a workflow's alert channels and error workflow",
  description:
    "`channels: null` uses the workspace's; `[]` sends none. The error workflow must be another workflow of this workspace.",
  tag,
  minRole: "editor",
  params: IdParams,
  body: UpdateWorkflowAlertsInput.omit({ workflowId: true }).strict(),
  responses: { 200: { description: "The settings", schema: WorkflowAlerts } },
});

export const listAlertsOp = defineOperation({
  method: "GET",
  path: "/alerts",
  operationId: "listAlerts",
  summary: "List recent alerts",
  description: "Newest first, sent and suppressed, optionally of one workflow.",
  tag,
  minRole: "viewer",
  query: z.object({
    workflowId: Id.optional(),
    limit: z.coerce.number().int().min(1).max(200).optional(),
  }),
  responses: { 200: { description: "Alerts", schema: z.object({ alerts: z.array(Alert) }) } },
});
