import "server-only";
import { eq } from "drizzle-orm";
import { users } from "@/db/schema";
import { InvitationTokenInput } from "@/lib/schemas/workspace";
import { NotFoundError, fromZodError } from "../../errors";
import { requireUserId, type ServiceContext } from "../context";
import { withInvitationThrottle } from "../auth-throttle/guard";
import { claimInvitation } from "./claim-invitation";

/** A signed-in user accepts an invitation addressed to their email. */
export async function acceptInvitation({ ctx, input }: { ctx: ServiceContext; input: unknown }) {
  const userId = requireUserId(ctx);
  const parsed = InvitationTokenInput.safeParse(input);
  if (!parsed.success) throw fromZodError(parsed.error);
  const [user] = await ctx.db
    .select({ email: users.email })
    .from(users)
    .where(eq(users.id, userId))
    .limit(1);
  if (!user) throw new NotFoundError("User");
  return withInvitationThrottle(ctx, () =>
    ctx.db.transaction((tx) =>
      claimInvitation(tx, ctx, { token: parsed.data.token, userId, email: user.email }),
    ),
  );
}
