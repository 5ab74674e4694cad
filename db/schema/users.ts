import { index, pgTable, text, uniqueIndex } from "drizzle-orm/pg-core";
import { createdAt, tstz } from "./common";

export const users = pgTable(
  "users",
  {
    id: text("id").primaryKey(),
    /** Stored lower-cased; unique. */
    email: text("email").notNull(),
    name: text("name").notNull(),
    /** `scrypt$N$r$p$salt$hash`; null for users who only sign in with OAuth. */
    passwordHash: text("password_hash"),
    createdAt: createdAt(),
    updatedAt: tstz("updated_at").notNull().defaultNow(),
  },
  (t) => [uniqueIndex("users_email_key").on(t.email)],
);

/** Links an OAuth identity (e.g. GitHub) to a user. */
export const oauthAccounts = pgTable(
  "oauth_accounts",
  {
    id: text("id").primaryKey(),
    userId: text("user_id")
      .notNull()
      .references(() => users.id, { onDelete: "cascade" }),
    provider: text("provider").notNull(),
    providerAccountId: text("provider_account_id").notNull(),
    createdAt: createdAt(),
  },
  (t) => [
    uniqueIndex("oauth_accounts_provider_key").on(t.provider, t.providerAccountId),
    index("oauth_accounts_user_idx").on(t.userId),
  ],
);
