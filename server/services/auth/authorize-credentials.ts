import "server-only";
import type { ServiceContext } from "../context";
import { verifySignInSecondFactor } from "../two-factor/verify-sign-in-second-factor";
import { verifyCredentials } from "./verify-credentials";

/**
 * The credentials provider's whole check: email + password, then the second factor when the
 * user has one. Null for a wrong email or password; SecondFactorError when the code is missing
 * or wrong (only ever after a right password).
 */
export async function authorizeCredentials({
  ctx,
  input,
}: {
  ctx: ServiceContext;
  input: Record<string, unknown> | undefined;
}) {
  const user = await verifyCredentials(ctx.db, input);
  if (!user) return null;
  await verifySignInSecondFactor({ ctx, input: { userId: user.id, code: input?.code } });
  return user;
}
