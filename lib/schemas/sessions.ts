import { z } from "zod";
import { Password } from "./auth";

/** Why a session ended; stored on the row (user_sessions.revoked_reason). */
export const SESSION_END_REASONS = [
  "sign_out",
  "revoked",
  "revoked_all",
  "password_change",
  "removed_from_workspaces",
] as const;
export type SessionEndReason = (typeof SESSION_END_REASONS)[number];

export const RevokeSessionInput = z.object({ sessionId: z.string().min(1).max(100) });
export type RevokeSessionInput = z.infer<typeof RevokeSessionInput>;

export const RevokeAllSessionsInput = z.object({
  /** true: "sign out everywhere else"; false: every session, this one too. */
  exceptCurrent: z.boolean(),
});
export type RevokeAllSessionsInput = z.infer<typeof RevokeAllSessionsInput>;

export const ChangePasswordInput = z.object({
  currentPassword: z.string().min(1, "Enter your current password").max(200),
  newPassword: Password,
});
export type ChangePasswordInput = z.infer<typeof ChangePasswordInput>;
