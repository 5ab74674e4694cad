import { bigint, index, integer, pgTable, text } from "drizzle-orm/pg-core";
import { createdAt, tstz } from "./common";
import { users } from "./users";

/**
 * A user's TOTP authenticator. The shared secret is AES-256-GCM encrypted with the secrets key
 * (server/secrets/crypto.ts), bound to the user id as authenticated data. `enabledAt` is null
 * while enrolment awaits its confirmation code; `lastUsedStep` is the newest accepted 30 s time
 * step, advanced by compare-and-set so one code signs in once (RFC 6238 §5.2).
 */
export const userTwoFactor = pgTable("user_two_factor", {
  userId: text("user_id")
    .primaryKey()
    .references(() => users.id, { onDelete: "cascade" }),
  /** base64 */
  ciphertext: text("ciphertext").notNull(),
  /** base64, 12 bytes */
  iv: text("iv").notNull(),
  /** base64, 16 bytes */
  authTag: text("auth_tag").notNull(),
  keyVersion: integer("key_version").notNull(),
  /** Random per user; salts the recovery code hashes so equal codes never hash alike. */
  recoverySalt: text("recovery_salt").notNull(),
  lastUsedStep: bigint("last_used_step", { mode: "number" }),
  enabledAt: tstz("enabled_at"),
  createdAt: createdAt(),
});

/** One-time recovery codes: only sha256(salt + code) is stored; `usedAt` is set once. */
export const twoFactorRecoveryCodes = pgTable(
  "two_factor_recovery_codes",
  {
    id: text("id").primaryKey(),
    userId: text("user_id")
      .notNull()
      .references(() => users.id, { onDelete: "cascade" }),
    codeHash: text("code_hash").notNull(),
    usedAt: tstz("used_at"),
    createdAt: createdAt(),
  },
  (t) => [index("two_factor_recovery_codes_user_idx").on(t.userId)],
);
