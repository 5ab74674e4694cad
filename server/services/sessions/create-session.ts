import "server-only";
import { userSessions } from "@/db/schema";
import { newId } from "@/lib/ids";
import type { ServiceContext } from "../context";

/**
 * Opens the session row a new sign-in's JWT will carry (`sid`). Called by the next-auth jwt
 * callback for every provider, so credentials and GitHub sign-ins are recorded alike.
 */
export async function createSession({
  ctx,
  input,
}: {
  ctx: ServiceContext;
  input: { userId: string };
}): Promise<{ sessionId: string }> {
  const id = newId("ses");
  const now = ctx.now();
  await ctx.db.insert(userSessions).values({
    id,
    userId: input.userId,
    createdAt: now,
    lastSeenAt: now,
    userAgent: ctx.client?.userAgent ?? null,
    clientAddress: ctx.client?.address ?? null,
  });
  return { sessionId: id };
}
