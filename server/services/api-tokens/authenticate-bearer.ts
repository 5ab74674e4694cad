import "server-only";
import type { ServiceContext } from "../context";
import { addressSubject, countFailure, refuseIfLocked } from "../auth-throttle/guard";
import { authenticateApiToken, type TokenIdentity } from "./authenticate-api-token";

/**
 * An API request's bearer token behind the auth throttle, per client address: while the address
 * is locked every token is refused (TooManyAttemptsError → 429 + Retry-After) without a lookup;
 * a presented token that matches nothing counts as a failure. No token at all is not a failure.
 */
export async function authenticateBearer({
  ctx,
  input,
}: {
  ctx: ServiceContext;
  input: string | null | undefined;
}): Promise<TokenIdentity | null> {
  if (!input) return null;
  const subject = addressSubject(ctx, "api_token");
  if (subject) await refuseIfLocked(ctx, subject);
  const identity = await authenticateApiToken(ctx.db, input, ctx.now());
  if (!identity && subject) await countFailure(ctx, subject);
  return identity;
}
