import "server-only";
import { and, eq, inArray, isNull, lt, or } from "drizzle-orm";
import type { Db } from "@/db/client";
import { alerts } from "@/db/schema";
import type { AlertChannel } from "@/lib/schemas/alerts";
import type { Logger } from "@/lib/log";
import { sendMail, SmtpError } from "@/server/integrations/smtp";
import { safeFetch } from "@/server/net/safe-fetch";
import { SafeFetchError } from "@/server/net/safe-fetch-error";
import type { Keys } from "../../keys";
import type { ServiceConfig } from "../context";
import { resolveSecrets } from "../secrets/resolve-secrets";
import { loadWorkspaceIntegrations } from "../settings/load-workspace-integrations";
import { loadWorkspacePolicy } from "../settings/load-workspace-policy";
import { channelsFor } from "./alert-settings";
import { alertPayload, alertText } from "./alert-message";

const TIMEOUT_MS = 15_000;
/** Longer than every channel's timeout together (at most 10 channels are sent in turn). */
const CLAIM_MS = 11 * TIMEOUT_MS;

export interface ChannelResult {
  /** `slack#0`, `webhook#1`, `email#2`: the kind and position, never the URL or address. */
  channel: string;
  ok: boolean;
  error?: string;
}

/** Thrown when some channel failed: the caller (an Inngest function) retries the whole alert. */
export class AlertDeliveryError extends Error {
  constructor(readonly failed: ChannelResult[]) {
    super(`alert delivery failed on ${failed.map((f) => `${f.channel} (${f.error})`).join(", ")}`);
    this.name = "AlertDeliveryError";
  }
}

/**
 * Sends a recorded alert to its workflow's channels (or the workspace's). Channels that already
 * succeeded on an earlier attempt are not sent again; a failure throws AlertDeliveryError after
 * the row records which channel failed and why (a code or a status, never a URL or a secret).
 */
export async function deliverAlert(
  deps: { db: Db; keys: Keys; config: ServiceConfig; log: Logger },
  alertId: string,
  workspaceId: string,
  now: () => Date,
): Promise<{ status: "delivered" | "skipped"; results: ChannelResult[] }> {
  const { db } = deps;
  // Claim under a lease: a duplicate execution (at-least-once executors) finds it held or done.
  const [row] = await db
    .update(alerts)
    .set({ claimedUntil: new Date(now().getTime() + CLAIM_MS) })
    .where(
      and(
        eq(alerts.id, alertId),
        eq(alerts.workspaceId, workspaceId),
        inArray(alerts.status, ["pending", "failed"]),
        or(isNull(alerts.claimedUntil), lt(alerts.claimedUntil, now())),
      ),
    )
    .returning();
  if (!row) {
    const [held] = await db
      .select({ status: alerts.status })
      .from(alerts)
      .where(and(eq(alerts.id, alertId), eq(alerts.workspaceId, workspaceId)));
    // Held by another attempt that may yet fail or die: retry until it is done or the lease ends.
    if (held && (held.status === "pending" || held.status === "failed"))
      throw new Error("alert is being delivered by another attempt; retrying");
    return { status: "skipped", results: [] };
  }
  const channels = await channelsFor(db, workspaceId, row.workflowId);
  const done = new Set(
    (row.deliveries as unknown as ChannelResult[]).filter((d) => d.ok).map((d) => d.channel),
  );
  const policy = await loadWorkspacePolicy(db, workspaceId);
  const outbound = { allowedPrivateHosts: policy.allowedPrivateHosts };
  const text = alertText(deps.config.publicUrl, row);

  const results: ChannelResult[] = [];
  for (const [i, channel] of channels.entries()) {
    const name = `${channel.kind}#${i}`;
    if (done.has(name)) {
      results.push({ channel: name, ok: true });
      continue;
    }
    try {
      await sendTo(deps, workspaceId, channel, { text, row, outbound });
      results.push({ channel: name, ok: true });
    } catch (e) {
      results.push({ channel: name, ok: false, error: describe(e) });
    }
  }
  const failed = results.filter((r) => !r.ok);
  await db
    .update(alerts)
    .set({
      status: failed.length ? "failed" : "delivered",
      deliveries: results as unknown as Record<string, unknown>[],
      attempts: row.attempts + 1,
      lastError: failed.length ? failed.map((f) => `${f.channel}: ${f.error}`).join("; ") : null,
      deliveredAt: failed.length ? null : now(),
      claimedUntil: null,
    })
    .where(eq(alerts.id, row.id));
  if (failed.length) {
    deps.log.warn("alert delivery failed; will retry", { alertId, failed });
    throw new AlertDeliveryError(failed);
  }
  return { status: "delivered", results };
}

async function sendTo(
  deps: { db: Db; keys: Keys; config: ServiceConfig },
  workspaceId: string,
  channel: AlertChannel,
  msg: {
    text: string;
    row: typeof alerts.$inferSelect;
    outbound: { allowedPrivateHosts: readonly string[] };
  },
): Promise<void> {
  switch (channel.kind) {
    case "slack": {
      const url = (await resolveSecrets(deps.db, deps.keys, workspaceId, [channel.secret]))[
        channel.secret
      ]!;
      await post(url, { text: msg.text }, {}, msg.outbound);
      return;
    }
    case "webhook": {
      const url = channel.url
        ? channel.url
        : (await resolveSecrets(deps.db, deps.keys, workspaceId, [channel.secret!]))[
            channel.secret!
          ]!;
      await post(
        url,
        alertPayload(deps.config.publicUrl, msg.row),
        { "idempotency-key": msg.row.id },
        msg.outbound,
      );
      return;
    }
    case "email": {
      const { smtp } = await loadWorkspaceIntegrations(deps.db, deps.keys, workspaceId, ["smtp"]);
      if (!smtp) throw new Error("SMTP is not configured for this workspace");
      await sendMail(
        smtp,
        {
          to: channel.to,
          subject: `[Sluice] ${msg.row.summary}`.slice(0, 200),
          text: msg.text,
          messageId: `<${msg.row.id}@sluice.invalid>`,
        },
        { outbound: msg.outbound, timeoutMs: TIMEOUT_MS },
      );
      return;
    }
  }
}

async function post(
  url: string,
  body: unknown,
  headers: Record<string, string>,
  outbound: { allowedPrivateHosts: readonly string[] },
): Promise<void> {
  const res = await safeFetch(url, {
    ...outbound,
    method: "POST",
    headers: { "content-type": "application/json", ...headers },
    body: JSON.stringify(body),
    timeoutMs: TIMEOUT_MS,
    maxResponseBytes: 16 * 1024,
  });
  if (res.status >= 400) throw new Error(`HTTP ${res.status}`);
}

/** A reason safe to store and log: codes and statuses only (URLs carry webhook tokens). */
function describe(e: unknown): string {
  if (e instanceof SafeFetchError) return e.code;
  if (e instanceof SmtpError) return `smtp ${e.kind}`;
  if (e instanceof Error && /^(HTTP \d+|SMTP is not configured)/.test(e.message)) return e.message;
  if (e instanceof Error && e.name === "MissingSecretsError") return "secret missing";
  return "error";
}
