import "server-only";
import { and, count, eq, isNull } from "drizzle-orm";
import { twoFactorRecoveryCodes, users } from "@/db/schema";
import { NotFoundError } from "../../errors";
import { requireUserId, type ServiceContext } from "../context";
import { workspacesRequiringTwoFactor } from "./needs-two-factor-enrolment";
import { loadTwoFactor } from "./totp";

/** The acting user's two-factor state for the account page (never the secret or the codes). */
export async function getTwoFactorStatus({ ctx }: { ctx: ServiceContext }) {
  const userId = requireUserId(ctx);
  const [user] = await ctx.db
    .select({ passwordHash: users.passwordHash })
    .from(users)
    .where(eq(users.id, userId));
  if (!user) throw new NotFoundError("User", userId);
  const row = await loadTwoFactor(ctx.db, userId);
  const [left] = row?.enabledAt
    ? await ctx.db
        .select({ n: count() })
        .from(twoFactorRecoveryCodes)
        .where(
          and(eq(twoFactorRecoveryCodes.userId, userId), isNull(twoFactorRecoveryCodes.usedAt)),
        )
    : [];
  return {
    /** Two-factor guards password sign-in; accounts without a password sign in through OAuth. */
    hasPassword: Boolean(user.passwordHash),
    enabled: Boolean(row?.enabledAt),
    enabledAt: row?.enabledAt ?? null,
    recoveryCodesLeft: left?.n ?? 0,
    requiredBy: await workspacesRequiringTwoFactor(ctx.db, userId),
  };
}
