import "server-only";
import { requireRole, type ServiceContext } from "../context";
import { readRawSettings } from "../settings/read-settings";

/** Whether the current workspace requires two-factor; every member may read it, owners change it. */
export async function getTwoFactorRequirement({ ctx }: { ctx: ServiceContext }) {
  const ws = requireRole(ctx, "viewer");
  const raw = await readRawSettings(ctx.db, ws.id);
  return { required: raw.requireTwoFactor === true, canChange: ws.role === "owner" };
}
