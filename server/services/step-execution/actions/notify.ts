import type { StepConfig } from "@/lib/workflow/steps";
import { sendMail, SmtpError } from "@/server/integrations/smtp";
import { safeFetch, type SafeResponse } from "@/server/net/safe-fetch";
import { SafeFetchError } from "@/server/net/safe-fetch-error";
import {
  failureFromFetch,
  failureFromStatus,
  outboundPolicy,
  remainingMs,
  userFailure,
} from "./failures";
import { StepFailure, type ActionContext, type ActionHandler } from "./types";

export type NotifyStepConfig = StepConfig<"notify">;

export const NOTIFY_TIMEOUT_MS = 30_000;
export const DEFAULT_EMAIL_SUBJECT = "Notification from Sluice";

/**
 * The JSON body of the `webhook` channel. `text` duplicates `message` so chat tools that read
 * `text` (Slack-compatible, Mattermost, Rocket.Chat, Teams connectors) show something useful.
 */
export interface NotifyWebhookPayload {
  event: "sluice.notify";
  text: string;
  message: string;
  subject?: string;
  workspaceId: string;
  /** Null for an inline run. */
  workflowId: string | null;
  runId: string;
  stepId: string;
  attempt: number;
  /** ISO 8601 */
  sentAt: string;
}

async function post(
  ctx: ActionContext<NotifyStepConfig>,
  what: string,
  body: unknown,
  headers: Record<string, string> = {},
): Promise<SafeResponse> {
  let res: SafeResponse;
  try {
    res = await safeFetch(ctx.config.target, {
      ...outboundPolicy(ctx),
      method: "POST",
      headers: { "content-type": "application/json", ...headers },
      body: JSON.stringify(body),
      signal: ctx.signal,
      timeoutMs: remainingMs(ctx, NOTIFY_TIMEOUT_MS),
      maxResponseBytes: 64 * 1024,
    });
  } catch (e) {
    if (e instanceof SafeFetchError) throw failureFromFetch(e, what);
    throw e;
  }
  if (res.status >= 400) throw failureFromStatus(what, res);
  return res;
}

const EMAIL = /^[^\s@<>]+@[^\s@<>]+\.[^\s@<>]+$/;

/** A Message-ID derived from the idempotency key, so a retried send can be recognised downstream. */
function messageId(ctx: ActionContext<NotifyStepConfig>): string {
  return `<${ctx.idempotencyKey.replace(/[^A-Za-z0-9._-]/g, "-")}@sluice.invalid>`;
}

/**
 * The `notify` step. `slack`: POST `{ text }` to a Slack-compatible incoming webhook. `webhook`:
 * POST the NotifyWebhookPayload JSON with an Idempotency-Key header. `email`: send a plain-text
 * message through the workspace's SMTP server (`ctx.smtp`) with a stable Message-ID. All HTTP
 * goes through the SSRF guard, and the SMTP host through the same address checks.
 */
export const notifyHandler: ActionHandler<NotifyStepConfig> = async (ctx) => {
  const config = ctx.config;
  switch (config.channel) {
    case "slack": {
      const res = await post(ctx, "Slack webhook", { text: config.message });
      return {
        data: { delivered: true, channel: "slack", status: res.status },
        meta: { response: res.text().slice(0, 200) },
      };
    }
    case "webhook": {
      const payload: NotifyWebhookPayload = {
        event: "sluice.notify",
        text: config.message,
        message: config.message,
        ...(config.subject ? { subject: config.subject } : {}),
        workspaceId: ctx.workspaceId,
        workflowId: ctx.workflowId,
        runId: ctx.runId,
        stepId: ctx.stepId,
        attempt: ctx.attempt,
        sentAt: new Date().toISOString(),
      };
      const res = await post(ctx, "Webhook", payload, { "idempotency-key": ctx.idempotencyKey });
      return { data: { delivered: true, channel: "webhook", status: res.status }, meta: {} };
    }
    case "email": {
      if (!ctx.smtp) {
        throw userFailure(
          "Email is not configured for this workspace. A workspace admin can set up SMTP under Settings → Integrations.",
          { integration: "smtp" },
        );
      }
      if (!EMAIL.test(config.target))
        throw userFailure(`"${config.target}" is not an email address`, { field: "target" });
      try {
        const sent = await sendMail(
          ctx.smtp,
          {
            to: config.target,
            subject: config.subject ?? DEFAULT_EMAIL_SUBJECT,
            text: config.message,
            messageId: messageId(ctx),
          },
          {
            outbound: outboundPolicy(ctx),
            signal: ctx.signal,
            timeoutMs: remainingMs(ctx, NOTIFY_TIMEOUT_MS),
          },
        );
        return {
          data: {
            delivered: true,
            channel: "email",
            messageId: sent.messageId,
            accepted: sent.accepted,
          },
          meta: { response: sent.response },
        };
      } catch (e) {
        if (e instanceof SmtpError) {
          throw new StepFailure(e.message, e.retryable ? "operational" : "user", {
            kind: e.kind,
            ...(e.extra.responseCode ? { responseCode: e.extra.responseCode } : {}),
          });
        }
        throw e;
      }
    }
  }
};
