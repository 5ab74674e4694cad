import { z } from "zod";

/** What an alert is about (docs/operations.md "Alerts"). */
export const ALERT_KINDS = ["run_failed", "gate_waiting", "trigger_rejecting"] as const;
export const AlertKind = z.enum(ALERT_KINDS);
export type AlertKind = z.infer<typeof AlertKind>;

/**
 * `suppressed`: counted into the next alert of its window; `pending`: waiting for delivery;
 * `skipped`: no channel configured (kept so the window and the count still work).
 */
export const ALERT_STATUSES = ["suppressed", "pending", "delivered", "failed", "skipped"] as const;
export type AlertStatus = (typeof ALERT_STATUSES)[number];

const SECRET_NAME = z
  .string()
  .trim()
  .regex(/^[A-Za-z_][A-Za-z0-9_]{0,63}$/, "A secret name: letters, digits and _");

/**
 * One place an alert goes. Slack: the incoming-webhook URL is a credential, so it is named as a
 * workspace secret. Generic webhook: a plain URL, or a secret holding it. Email: through the
 * workspace's SMTP integration.
 */
export const AlertChannel = z.discriminatedUnion("kind", [
  z.object({ kind: z.literal("slack"), secret: SECRET_NAME }),
  z
    .object({
      kind: z.literal("webhook"),
      url: z
        .url({ protocol: /^https?$/, error: "An http(s) URL" })
        .max(2000)
        .optional(),
      secret: SECRET_NAME.optional(),
    })
    .refine((c) => !!c.url !== !!c.secret, {
      message: "Give either url or secret (the name of a secret holding the URL)",
      path: ["url"],
    }),
  z.object({ kind: z.literal("email"), to: z.email({ error: "An email address" }).max(320) }),
]);
export type AlertChannel = z.infer<typeof AlertChannel>;

export const AlertChannels = z.array(AlertChannel).max(10, "At most 10 channels");
export type AlertChannels = z.infer<typeof AlertChannels>;

export const DEFAULT_ALERT_WINDOW_MINUTES = 60;
export const DEFAULT_GATE_AGE_HOURS = 24;
export const DEFAULT_REJECT_THRESHOLD = 10;

/** The workspace defaults (stored under `alerts` in the workspace settings). */
export const WorkspaceAlertSettings = z.object({
  channels: AlertChannels.default([]),
  /** One alert per workflow (trigger for rejects) and kind per window; the rest are counted. */
  windowMinutes: z.number().int().min(1).max(10_080).default(DEFAULT_ALERT_WINDOW_MINUTES),
  /** A gate (approval or task) waiting longer than this alerts; null: never. */
  gateAgeHours: z.number().int().min(1).max(8_760).nullable().default(DEFAULT_GATE_AGE_HOURS),
  /** This many rejected deliveries of one trigger within the window alert; null: never. */
  rejectThreshold: z
    .number()
    .int()
    .min(1)
    .max(100_000)
    .nullable()
    .default(DEFAULT_REJECT_THRESHOLD),
});
export type WorkspaceAlertSettings = z.infer<typeof WorkspaceAlertSettings>;

export const UpdateWorkspaceAlertsInput = WorkspaceAlertSettings;
export type UpdateWorkspaceAlertsInput = z.input<typeof UpdateWorkspaceAlertsInput>;

/** A workflow's own settings. `channels: null` uses the workspace's; `[]` sends none. */
export const UpdateWorkflowAlertsInput = z.object({
  workflowId: z.string().min(1),
  channels: AlertChannels.nullable(),
  /** Started with the failed run's context when a run fails; null: none. */
  errorWorkflowId: z.string().min(1).nullable(),
});
export type UpdateWorkflowAlertsInput = z.infer<typeof UpdateWorkflowAlertsInput>;

export const GetWorkflowAlertsInput = z.object({ workflowId: z.string().min(1) });
export type GetWorkflowAlertsInput = z.infer<typeof GetWorkflowAlertsInput>;

export const ListAlertsInput = z.object({
  workflowId: z.string().min(1).optional(),
  limit: z.number().int().min(1).max(200).default(50),
});
export type ListAlertsInput = z.input<typeof ListAlertsInput>;

/** The input an error workflow's run receives (docs/operations.md "Error workflows"). */
export interface ErrorWorkflowInput {
  runId: string;
  workflowId: string;
  workflowName: string;
  /** The failed run's version, e.g. "1.0.3". */
  version: string;
  failedStep: { id: string; type: string } | null;
  error: Record<string, unknown> | null;
  input: Record<string, unknown>;
}

/** The inputs an error workflow declares to receive ErrorWorkflowInput (run inputs are checked). */
export const ERROR_WORKFLOW_INPUTS = {
  runId: { type: "string" },
  workflowId: { type: "string" },
  workflowName: { type: "string" },
  version: { type: "string" },
  failedStep: { type: "object" },
  error: { type: "object" },
  input: { type: "object" },
} as const;
