import "server-only";
import { UpdateSmtpIntegrationInput } from "@/lib/schemas/workspace";
import { fromZodError } from "../../errors";
import { recordAudit } from "../audit/record-audit";
import { requireRole, type ServiceContext } from "../context";
import { parseWorkspaceSettings, readRawSettings, writeSettingsKeys } from "./read-settings";
import { requireSecretExists } from "./require-secret-exists";

/** Sets (or with null removes) the workspace's SMTP server (admin); the password is a secret name. */
export async function updateSmtpIntegration({
  ctx,
  input,
}: {
  ctx: ServiceContext;
  input: unknown;
}) {
  const ws = requireRole(ctx, "admin");
  const parsed = UpdateSmtpIntegrationInput.safeParse(input);
  if (!parsed.success) throw fromZodError(parsed.error, "SMTP settings");
  const after = parsed.data.smtp;
  await ctx.db.transaction(async (tx) => {
    // Lock the settings row first: deleteSecret takes the same lock before checking usage.
    const raw = await readRawSettings(tx, ws.id, true);
    await requireSecretExists(tx, ws.id, after?.passwordSecret, ["smtp", "passwordSecret"]);
    const before = parseWorkspaceSettings(raw).smtp;
    await writeSettingsKeys(tx, ws.id, raw, { smtp: after });
    await recordAudit(tx, ctx, {
      action: "workspace.smtp_updated",
      targetType: "workspace",
      targetId: ws.id,
      data: { before, after },
    });
  });
  return { smtp: after };
}
