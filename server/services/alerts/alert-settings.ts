import "server-only";
import { and, eq } from "drizzle-orm";
import type { Queryable } from "@/db/client";
import { workflowAlertSettings } from "@/db/schema";
import { AlertChannel, WorkspaceAlertSettings, type AlertChannels } from "@/lib/schemas/alerts";
import { readRawSettings } from "../settings/read-settings";

/** The settings key the workspace's alert defaults live under. */
export const ALERTS_SETTINGS_KEY = "alerts";

/**
 * The workspace's alert defaults, each field parsed on its own (a malformed field falls back to
 * its default instead of hiding the others, as parseWorkspaceSettings does).
 */
export function parseWorkspaceAlerts(raw: unknown): WorkspaceAlertSettings {
  const obj = (raw && typeof raw === "object" ? raw : {}) as Record<string, unknown>;
  const shape = WorkspaceAlertSettings.shape;
  const field = <K extends keyof typeof shape>(k: K): WorkspaceAlertSettings[K] => {
    const r = shape[k].safeParse(obj[k]);
    return (r.success ? r.data : shape[k].parse(undefined)) as WorkspaceAlertSettings[K];
  };
  return {
    channels: validChannels(obj.channels) ?? [],
    windowMinutes: field("windowMinutes"),
    gateAgeHours: field("gateAgeHours"),
    rejectThreshold: field("rejectThreshold"),
  };
}

function validChannels(v: unknown): AlertChannels | null {
  if (!Array.isArray(v)) return null;
  return v.flatMap((c) => {
    const r = AlertChannel.safeParse(c);
    return r.success ? [r.data] : [];
  });
}

export async function loadWorkspaceAlerts(
  db: Queryable,
  workspaceId: string,
): Promise<WorkspaceAlertSettings> {
  const raw = await readRawSettings(db, workspaceId);
  return parseWorkspaceAlerts(raw[ALERTS_SETTINGS_KEY]);
}

export interface WorkflowAlerts {
  /** Null: the workspace's channels. */
  channels: AlertChannels | null;
  errorWorkflowId: string | null;
}

export async function loadWorkflowAlerts(
  db: Queryable,
  workspaceId: string,
  workflowId: string,
): Promise<WorkflowAlerts> {
  const [row] = await db
    .select({
      channels: workflowAlertSettings.channels,
      errorWorkflowId: workflowAlertSettings.errorWorkflowId,
    })
    .from(workflowAlertSettings)
    .where(
      and(
        eq(workflowAlertSettings.workspaceId, workspaceId),
        eq(workflowAlertSettings.workflowId, workflowId),
      ),
    );
  return {
    channels: row?.channels == null ? null : validChannels(row.channels),
    errorWorkflowId: row?.errorWorkflowId ?? null,
  };
}

/** Where an alert about this workflow (or about no workflow: the defaults) goes. */
export async function channelsFor(
  db: Queryable,
  workspaceId: string,
  workflowId: string | null,
  workspace?: WorkspaceAlertSettings,
): Promise<AlertChannels> {
  const own = workflowId ? (await loadWorkflowAlerts(db, workspaceId, workflowId)).channels : null;
  return own ?? (workspace ?? (await loadWorkspaceAlerts(db, workspaceId))).channels;
}
