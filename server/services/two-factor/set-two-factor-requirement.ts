import "server-only";
import { SetTwoFactorRequirementInput } from "@/lib/schemas/two-factor";
import { fromZodError } from "../../errors";
import { recordAudit } from "../audit/record-audit";
import { requireRole, type ServiceContext } from "../context";
import { readRawSettings, writeSettingsKeys } from "../settings/read-settings";

/**
 * Owner only: whether members who sign in with a password must use two-factor. Members without
 * it are sent to enrol at their next sign-in (see needsTwoFactorEnrolment).
 */
export async function setTwoFactorRequirement({
  ctx,
  input,
}: {
  ctx: ServiceContext;
  input: unknown;
}) {
  const ws = requireRole(ctx, "owner");
  const parsed = SetTwoFactorRequirementInput.safeParse(input);
  if (!parsed.success) throw fromZodError(parsed.error, "Two-factor requirement");
  const { required } = parsed.data;
  await ctx.db.transaction(async (tx) => {
    const raw = await readRawSettings(tx, ws.id, true);
    const before = raw.requireTwoFactor === true;
    // Absent means "not required", so turning it off removes the key.
    await writeSettingsKeys(tx, ws.id, raw, { requireTwoFactor: required ? true : null });
    await recordAudit(tx, ctx, {
      action: "workspace.two_factor_requirement_updated",
      targetType: "workspace",
      targetId: ws.id,
      data: { before, after: required },
    });
  });
  return { required };
}
