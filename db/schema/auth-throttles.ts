import { sql } from "drizzle-orm";
import { check, index, integer, pgTable, text } from "drizzle-orm/pg-core";
import { tstz } from "./common";

/**
 * Failed-authentication counters shared by every app instance (server/services/auth-throttle).
 * One row per throttled subject: `key` is a hash of scope + subject (a normalized email, a client
 * address), so typed-in emails are not kept in clear. Attempts are reserved with a conditional
 * upsert (`… on conflict do update … where not locked returning`), never check-then-act.
 */
export const authThrottles = pgTable(
  "auth_throttles",
  {
    key: text("key").primaryKey(),
    /** account | address | invitation | api_token: which policy the row follows. */
    scope: text("scope").notNull(),
    failures: integer("failures").notNull().default(0),
    /** Attempts are refused until then (null: not locked). */
    lockedUntil: tstz("locked_until"),
    lastFailureAt: tstz("last_failure_at").notNull(),
  },
  (t) => [
    // Pruning deletes by age.
    index("auth_throttles_last_failure_idx").on(t.lastFailureAt),
    check("auth_throttles_failures", sql`${t.failures} >= 0`),
  ],
);
