import "server-only";
import { UpdateLlmIntegrationInput } from "@/lib/schemas/workspace";
import { fromZodError } from "../../errors";
import { recordAudit } from "../audit/record-audit";
import { requireRole, type ServiceContext } from "../context";
import { parseWorkspaceSettings, readRawSettings, writeSettingsKeys } from "./read-settings";
import { requireSecretExists } from "./require-secret-exists";

/**
 * Sets (or with null removes) the workspace's LLM endpoint (admin). The API key is referenced
 * by secret name and must exist; the audit row carries before and after (names only).
 */
export async function updateLlmIntegration({
  ctx,
  input,
}: {
  ctx: ServiceContext;
  input: unknown;
}) {
  const ws = requireRole(ctx, "admin");
  const parsed = UpdateLlmIntegrationInput.safeParse(input);
  if (!parsed.success) throw fromZodError(parsed.error, "LLM endpoint");
  const after = parsed.data.llm;
  await ctx.db.transaction(async (tx) => {
    // Lock the settings row first: deleteSecret takes the same lock before checking usage.
    const raw = await readRawSettings(tx, ws.id, true);
    await requireSecretExists(tx, ws.id, after?.apiKeySecret, ["llm", "apiKeySecret"]);
    const before = parseWorkspaceSettings(raw).llm;
    await writeSettingsKeys(tx, ws.id, raw, { llm: after });
    await recordAudit(tx, ctx, {
      action: "workspace.llm_updated",
      targetType: "workspace",
      targetId: ws.id,
      data: { before, after },
    });
  });
  return { llm: after };
}
