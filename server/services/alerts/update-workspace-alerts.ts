import "server-only";
import { UpdateWorkspaceAlertsInput } from "@/lib/schemas/alerts";
import { fromZodError } from "../../errors";
import { recordAudit } from "../audit/record-audit";
import { requireRole, type ServiceContext } from "../context";
import { readRawSettings, writeSettingsKeys } from "../settings/read-settings";
import { ALERTS_SETTINGS_KEY, parseWorkspaceAlerts } from "./alert-settings";
import { requireChannelSecrets } from "./channel-secrets";

/**
 * Sets the workspace's alert defaults (admin, as other workspace settings): the channels workflows
 * without their own use, the rate-limit window, the gate age and the reject threshold. The audit
 * row carries before and after (channel kinds and secret names, never a secret's value).
 */
export async function updateWorkspaceAlerts({
  ctx,
  input,
}: {
  ctx: ServiceContext;
  input: unknown;
}) {
  const ws = requireRole(ctx, "admin");
  const parsed = UpdateWorkspaceAlertsInput.safeParse(input);
  if (!parsed.success) throw fromZodError(parsed.error, "Alert settings");
  const after = parsed.data;
  await ctx.db.transaction(async (tx) => {
    await requireChannelSecrets(tx, ws.id, after.channels);
    const raw = await readRawSettings(tx, ws.id, true);
    const before = parseWorkspaceAlerts(raw[ALERTS_SETTINGS_KEY]);
    await writeSettingsKeys(tx, ws.id, raw, { [ALERTS_SETTINGS_KEY]: after } as never);
    await recordAudit(tx, ctx, {
      action: "workspace.alerts_updated",
      targetType: "workspace",
      targetId: ws.id,
      data: { before, after },
    });
  });
  return after;
}
