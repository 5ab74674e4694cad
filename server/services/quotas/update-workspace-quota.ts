import "server-only";
import { UpdateWorkspaceQuotaInput } from "@/lib/schemas/quotas";
import { fromZodError } from "../../errors";
import { recordAudit } from "../audit/record-audit";
import { requireRole, type ServiceContext } from "../context";
import { readRawSettings, writeSettingsKeys } from "../settings/read-settings";
import { getQuotaUsage } from "./get-quota-usage";
import { parseStoredQuota } from "./workspace-quota";

/**
 * Sets the workspace's quota plan (admin; `null` = the server default, SLUICE_DEFAULT_PLAN) and
 * per-limit overrides over it (a number, or null for unlimited). Enforcement reads them on every
 * check; the audit row, in the same transaction, carries before and after.
 */
export async function updateWorkspaceQuota({
  ctx,
  input,
}: {
  ctx: ServiceContext;
  input: unknown;
}) {
  const ws = requireRole(ctx, "admin");
  const parsed = UpdateWorkspaceQuotaInput.safeParse(input);
  if (!parsed.success) throw fromZodError(parsed.error, "Quota");
  const { plan, overrides } = parsed.data;
  const after = {
    ...(plan ? { plan } : {}),
    ...(Object.keys(overrides).length ? { overrides } : {}),
  };
  await ctx.db.transaction(async (tx) => {
    const raw = await readRawSettings(tx, ws.id, true);
    const before = parseStoredQuota(raw.quota);
    await writeSettingsKeys(tx, ws.id, raw, {
      quota: Object.keys(after).length ? after : null,
    });
    await recordAudit(tx, ctx, {
      action: "workspace.quota_updated",
      targetType: "workspace",
      targetId: ws.id,
      data: { before, after },
    });
  });
  return getQuotaUsage({ ctx });
}
