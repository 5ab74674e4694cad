import "server-only";
import { UpdateWorkspacePoliciesInput } from "@/lib/schemas/workspace";
import { fromZodError } from "../../errors";
import { recordAudit } from "../audit/record-audit";
import { requireRole, type ServiceContext } from "../context";
import { parseWorkspaceSettings, readRawSettings, writeSettingsKeys } from "./read-settings";

/** Replaces the workspace policies (admin). The audit row carries before and after. */
export async function updateWorkspacePolicies({
  ctx,
  input,
}: {
  ctx: ServiceContext;
  input: unknown;
}) {
  const ws = requireRole(ctx, "admin");
  const parsed = UpdateWorkspacePoliciesInput.safeParse(input);
  if (!parsed.success) throw fromZodError(parsed.error, "Policies");
  const after = parsed.data;
  await ctx.db.transaction(async (tx) => {
    const raw = await readRawSettings(tx, ws.id, true);
    const before = parseWorkspaceSettings(raw).policies;
    await writeSettingsKeys(tx, ws.id, raw, after);
    await recordAudit(tx, ctx, {
      action: "workspace.policies_updated",
      targetType: "workspace",
      targetId: ws.id,
      data: { before, after },
    });
  });
  return after;
}
