import "server-only";
import { eq } from "drizzle-orm";
import { userTwoFactor, users } from "@/db/schema";
import { ConflictError, NotFoundError, PreconditionFailedError } from "../../errors";
import { requireUserId, type ServiceContext } from "../context";
import {
  encryptTotpSecret,
  enrolmentArtefacts,
  loadTwoFactor,
  newRecoverySalt,
  newTotpSecret,
} from "./totp";

/**
 * Starts (or restarts) enrolment: a new secret is stored encrypted as pending and shown once as a
 * QR code and a manual key. Nothing changes for sign-in until confirmTwoFactorEnrolment.
 */
export async function beginTwoFactorEnrolment({ ctx }: { ctx: ServiceContext }) {
  const userId = requireUserId(ctx);
  const [user] = await ctx.db
    .select({ email: users.email, passwordHash: users.passwordHash })
    .from(users)
    .where(eq(users.id, userId));
  if (!user) throw new NotFoundError("User", userId);
  if (!user.passwordHash)
    throw new PreconditionFailedError(
      "Two-factor protects password sign-in; this account signs in with GitHub, which has its own two-factor",
    );
  const secret = newTotpSecret();
  const encrypted = encryptTotpSecret(ctx.keys, userId, secret);
  await ctx.db.transaction(async (tx) => {
    const existing = await loadTwoFactor(tx, userId, true);
    if (existing?.enabledAt)
      throw new ConflictError(
        "Two-factor is already on; turn it off first to use a new authenticator",
      );
    const pending = {
      ...encrypted,
      recoverySalt: newRecoverySalt(),
      lastUsedStep: null,
      createdAt: ctx.now(),
    };
    await tx
      .insert(userTwoFactor)
      .values({ userId, ...pending })
      .onConflictDoUpdate({ target: userTwoFactor.userId, set: pending });
  });
  return enrolmentArtefacts(secret, user.email);
}
