import "server-only";
import { and, eq } from "drizzle-orm";
import { secrets } from "@/db/schema";
import { DeleteSecretInput } from "@/lib/schemas/secrets";
import { ConflictError, NotFoundError, fromZodError } from "../../errors";
import { recordAudit } from "../audit/record-audit";
import { requireRole, type ServiceContext } from "../context";
import {
  integrationsUsingSecret,
  parseWorkspaceSettings,
  readRawSettings,
} from "../settings/read-settings";

const INTEGRATION_LABELS: Record<string, string> = { llm: "LLM endpoint", smtp: "SMTP" };
const integrationLabel = (u: string) =>
  INTEGRATION_LABELS[u] ?? (u.startsWith("mcp:") ? `MCP server ${u.slice(4)}` : u);

/**
 * Deletes a secret. Refused while a workspace integration names it (the integration would break
 * silently); runs that reference it by template fail with a clear "secret does not exist" error.
 */
export async function deleteSecret({ ctx, input }: { ctx: ServiceContext; input: unknown }) {
  const ws = requireRole(ctx, "admin");
  const parsed = DeleteSecretInput.safeParse(input);
  if (!parsed.success) throw fromZodError(parsed.error, "Secret");
  const { name } = parsed.data;
  await ctx.db.transaction(async (tx) => {
    // Locking the settings row orders this delete against a concurrent integration update.
    const settings = parseWorkspaceSettings(await readRawSettings(tx, ws.id, true));
    const users = integrationsUsingSecret(settings, name);
    if (users.length) {
      throw new ConflictError(
        `Secret ${name} is used by the ${users.map(integrationLabel).join(" and ")} integration; change that under Settings → Integrations first.`,
      );
    }
    const done = await tx
      .delete(secrets)
      .where(and(eq(secrets.workspaceId, ws.id), eq(secrets.name, name)))
      .returning({ id: secrets.id });
    if (done.length !== 1) throw new NotFoundError("Secret", name);
    await recordAudit(tx, ctx, {
      action: "secret.deleted",
      targetType: "secret",
      targetId: name,
      data: { name },
    });
  });
  return { ok: true as const };
}
