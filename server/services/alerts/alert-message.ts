import type { alerts } from "@/db/schema";

type AlertRow = typeof alerts.$inferSelect;

/** The JSON body of the generic webhook channel; `text` also suits Slack-compatible receivers. */
export interface AlertWebhookPayload {
  event: "sluice.alert";
  alertId: string;
  kind: AlertRow["kind"];
  text: string;
  summary: string;
  /** Occurrences suppressed (rate limit) since the previous alert of this kind and subject. */
  suppressed: number;
  workspaceId: string;
  workflowId: string | null;
  runId: string | null;
  triggerId: string | null;
  /** Where to look: the run, else the trigger, else the workflow. */
  url: string;
  /** ISO 8601, when the occurrence was recorded. */
  at: string;
}

/** The page an alert links to (SLUICE_PUBLIC_URL + the run, trigger or workflow). */
export function alertLink(publicUrl: string, row: AlertRow): string {
  const base = publicUrl.replace(/\/+$/, "");
  if (row.runId) return `${base}/runs/${row.runId}`;
  if (row.triggerId && row.workflowId)
    return `${base}/workflows/${row.workflowId}/triggers/${row.triggerId}`;
  return row.workflowId ? `${base}/workflows/${row.workflowId}` : base;
}

/** One line a person reads in Slack or an inbox: what, the suppressed count, the link. */
export function alertText(publicUrl: string, row: AlertRow): string {
  const more =
    row.suppressedCount > 0
      ? ` (+${row.suppressedCount} more suppressed since the previous alert)`
      : "";
  return `[Sluice] ${row.summary}${more} — ${alertLink(publicUrl, row)}`;
}

export function alertPayload(publicUrl: string, row: AlertRow): AlertWebhookPayload {
  return {
    event: "sluice.alert",
    alertId: row.id,
    kind: row.kind,
    text: alertText(publicUrl, row),
    summary: row.summary,
    suppressed: row.suppressedCount,
    workspaceId: row.workspaceId,
    workflowId: row.workflowId,
    runId: row.runId,
    triggerId: row.triggerId,
    url: alertLink(publicUrl, row),
    at: row.createdAt.toISOString(),
  };
}
