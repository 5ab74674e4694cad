import { index, pgEnum, pgTable, text } from "drizzle-orm/pg-core";
import { SESSION_END_REASONS } from "../../lib/schemas/sessions";
import { createdAt, tstz } from "./common";
import { users } from "./users";

export const sessionEndReasonEnum = pgEnum("session_end_reason", SESSION_END_REASONS);

/**
 * One row per browser sign-in. The session JWT carries the row id (`sid`); a request whose row is
 * revoked (or missing) is treated as signed out (server/services/sessions/check-session.ts).
 */
export const userSessions = pgTable(
  "user_sessions",
  {
    id: text("id").primaryKey(),
    userId: text("user_id")
      .notNull()
      .references(() => users.id, { onDelete: "cascade" }),
    createdAt: createdAt(),
    /** Moved forward at most once a minute (TOUCH_EVERY_MS), not on every request. */
    lastSeenAt: tstz("last_seen_at").notNull().defaultNow(),
    /** Client at sign-in (server/http/client-address.ts). */
    userAgent: text("user_agent"),
    clientAddress: text("client_address"),
    revokedAt: tstz("revoked_at"),
    revokedReason: sessionEndReasonEnum("revoked_reason"),
  },
  (t) => [index("user_sessions_user_idx").on(t.userId, t.revokedAt)],
);
