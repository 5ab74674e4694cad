import "server-only";
import { and, eq } from "drizzle-orm";
import { users } from "@/db/schema";
import { ChangePasswordInput } from "@/lib/schemas/sessions";
import { hashPassword, verifyPassword } from "../../auth/password";
import {
  fromZodError,
  NotFoundError,
  PreconditionFailedError,
  ValidationError,
} from "../../errors";
import type { ServiceContext } from "../context";
import { recordAudit } from "../audit/record-audit";
import { endSessions, forgetEndedSessions, requireBrowserUser } from "../sessions/own-sessions";

/**
 * Changes the acting user's password after checking the current one, and signs out every other
 * session: whoever learnt the old password may already be signed in somewhere.
 */
export async function changePassword({ ctx, input }: { ctx: ServiceContext; input: unknown }) {
  const me = requireBrowserUser(ctx);
  const parsed = ChangePasswordInput.safeParse(input);
  if (!parsed.success) throw fromZodError(parsed.error);
  const { currentPassword, newPassword } = parsed.data;
  const [user] = await ctx.db
    .select({ passwordHash: users.passwordHash })
    .from(users)
    .where(eq(users.id, me.userId));
  if (!user) throw new NotFoundError("User", me.userId);
  if (!user.passwordHash)
    throw new PreconditionFailedError("This account signs in with GitHub and has no password");
  if (!(await verifyPassword(currentPassword, user.passwordHash)))
    throw new ValidationError("The current password is not correct", [
      { path: ["currentPassword"], message: "The current password is not correct" },
    ]);
  const newHash = await hashPassword(newPassword);
  const ended = await ctx.db.transaction(async (tx) => {
    // Compare-and-set on the hash just verified: two concurrent changes cannot both win.
    const changed = await tx
      .update(users)
      .set({ passwordHash: newHash, updatedAt: ctx.now() })
      .where(and(eq(users.id, me.userId), eq(users.passwordHash, user.passwordHash!)))
      .returning({ id: users.id });
    if (changed.length === 0)
      throw new PreconditionFailedError("The password was changed meanwhile; sign in again");
    const ids = await endSessions(tx, {
      userId: me.userId,
      except: me.sessionId,
      reason: "password_change",
      now: ctx.now(),
    });
    await recordAudit(tx, ctx, {
      action: "user.password_change",
      targetType: "user",
      targetId: me.userId,
      data: { revokedSessions: ids.length },
    });
    return ids;
  });
  forgetEndedSessions(ended);
  return { revokedSessions: ended.length };
}
