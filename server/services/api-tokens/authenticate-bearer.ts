import "server-only";
import type { ServiceContext } from "../context";
import { addressSubject, countFailureOrRefuse } from "../auth-throttle/guard";
import { authenticateApiToken, type TokenIdentity } from "./authenticate-api-token";

/**
 * An API request's bearer token behind the auth throttle, per client address. The token is looked
 * up first: a valid one always authenticates, however many bad guesses came from its address (a
 * shared NAT or CI runner must not lock out everyone's tokens). A presented token that matches
 * nothing counts as a failure, and once the address is locked it is refused
 * (TooManyAttemptsError → 429 + Retry-After). No token at all is not a failure.
 */
export async function authenticateBearer({
  ctx,
  input,
}: {
  ctx: ServiceContext;
  input: string | null | undefined;
}): Promise<TokenIdentity | null> {
  if (!input) return null;
  const identity = await authenticateApiToken(ctx.db, input, ctx.now());
  if (identity) return identity;
  const subject = addressSubject(ctx, "api_token");
  if (subject) await countFailureOrRefuse(ctx, subject);
  return null;
}
