import "server-only";
import { UpdateMcpServersInput } from "@/lib/schemas/workspace";
import { fromZodError } from "../../errors";
import { recordAudit } from "../audit/record-audit";
import { requireRole, type ServiceContext } from "../context";
import { parseWorkspaceSettings, readRawSettings, writeSettingsKeys } from "./read-settings";
import { requireSecretExists } from "./require-secret-exists";

/**
 * Replaces the workspace's MCP servers (admin), the ones `tool` steps call by name. API keys are
 * referenced by secret name and must exist; the audit row carries before and after (names only).
 */
export async function updateMcpServers({ ctx, input }: { ctx: ServiceContext; input: unknown }) {
  const ws = requireRole(ctx, "admin");
  const parsed = UpdateMcpServersInput.safeParse(input);
  if (!parsed.success) throw fromZodError(parsed.error, "MCP servers");
  const after = parsed.data.mcpServers;
  await ctx.db.transaction(async (tx) => {
    // Lock the settings row first: deleteSecret takes the same lock before checking usage.
    const raw = await readRawSettings(tx, ws.id, true);
    for (const [i, server] of after.entries())
      await requireSecretExists(tx, ws.id, server.apiKeySecret, [
        "mcpServers",
        String(i),
        "apiKeySecret",
      ]);
    const before = parseWorkspaceSettings(raw).mcpServers;
    await writeSettingsKeys(tx, ws.id, raw, { mcpServers: after.length ? after : null });
    await recordAudit(tx, ctx, {
      action: "workspace.mcp_servers_updated",
      targetType: "workspace",
      targetId: ws.id,
      data: { before, after },
    });
  });
  return { mcpServers: after };
}
