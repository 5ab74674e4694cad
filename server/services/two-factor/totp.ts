import "server-only";
import { randomBytes, randomInt } from "node:crypto";
import { and, eq, isNull, lt, or } from "drizzle-orm";
import { generateSecret, generateURI, verify } from "otplib";
import QRCode from "qrcode";
import type { Queryable } from "@/db/client";
import { twoFactorRecoveryCodes, userTwoFactor } from "@/db/schema";
import { newId } from "@/lib/ids";
import { safeEqual } from "@/lib/server-only/safe-equal";
import { sha256Hex, type Keys } from "../../keys";
import { createSecretCipher, type SecretLocation } from "../../secrets/crypto";

/**
 * The TOTP and recovery-code rules shared by enrolment, sign-in, disable and regeneration:
 * RFC 6238 with the authenticator-app defaults (SHA-1, 6 digits, 30 s), one step of clock drift
 * either way, each time step accepted once per user.
 */
export const TOTP_ISSUER = "Sluice";
export const RECOVERY_CODE_COUNT = 10;
const PERIOD_SECONDS = 30;
const RECOVERY_ALPHABET = "0123456789abcdefghjkmnpqrstvwxyz"; // Crockford base32, lower-case

export type TwoFactorRow = typeof userTwoFactor.$inferSelect;

/**
 * The AAD location of a user's TOTP secret. Workspace ids start with `ws_`, so the `user/` space
 * never collides with a workspace secret: a TOTP ciphertext pasted into a secrets row (or another
 * user's row) fails to decrypt.
 */
function location(userId: string): SecretLocation {
  return { workspaceId: `user/${userId}`, name: "two-factor-totp" };
}

export function encryptTotpSecret(keys: Keys, userId: string, secret: string) {
  return createSecretCipher(keys).encrypt(secret, location(userId));
}

export function decryptTotpSecret(keys: Keys, row: TwoFactorRow): string {
  return createSecretCipher(keys).decrypt(row, location(row.userId));
}

export function newTotpSecret(): string {
  // 20 bytes (160 bits), the RFC 4226 recommendation, base32 for authenticator apps.
  return generateSecret({ length: 20 });
}

/** The otpauth:// URI, its QR code as an SVG data URL (rendered here, no outside service). */
export async function enrolmentArtefacts(secret: string, label: string) {
  const otpauthUri = generateURI({ issuer: TOTP_ISSUER, label, secret });
  const svg = await QRCode.toString(otpauthUri, {
    type: "svg",
    margin: 1,
    errorCorrectionLevel: "M",
  });
  return {
    otpauthUri,
    qrCodeDataUrl: `data:image/svg+xml;base64,${Buffer.from(svg, "utf8").toString("base64")}`,
    // Groups of four, as authenticator apps show and accept them.
    manualKey: secret.replace(/(.{4})(?=.)/g, "$1 "),
  };
}

export function isTotpShaped(code: string): boolean {
  return /^\d{6}$/.test(code.replace(/\s+/g, ""));
}

/** The time step the code belongs to (now or ±1 step), or null when it matches none. */
export async function matchTotp(secret: string, code: string, now: Date): Promise<number | null> {
  const token = code.replace(/\s+/g, "");
  if (!/^\d{6}$/.test(token)) return null;
  const result = await verify({
    secret,
    token,
    epoch: Math.floor(now.getTime() / 1000),
    epochTolerance: PERIOD_SECONDS,
  });
  // The functional API types TOTP and HOTP results together; only TOTP results carry a step.
  return result.valid && "timeStep" in result ? result.timeStep : null;
}

/**
 * Records `step` as used, compare-and-set: false when this or a later step was already accepted,
 * so a replayed (or concurrently submitted) code is refused however the requests interleave.
 */
export async function consumeTotpStep(tx: Queryable, userId: string, step: number) {
  const rows = await tx
    .update(userTwoFactor)
    .set({ lastUsedStep: step })
    .where(
      and(
        eq(userTwoFactor.userId, userId),
        or(isNull(userTwoFactor.lastUsedStep), lt(userTwoFactor.lastUsedStep, step)),
      ),
    )
    .returning({ userId: userTwoFactor.userId });
  return rows.length === 1;
}

export function newRecoverySalt(): string {
  return randomBytes(16).toString("base64url");
}

function normaliseRecoveryCode(code: string): string {
  return code
    .toLowerCase()
    .replace(/[\s-]+/g, "")
    .replace(/o/g, "0")
    .replace(/[il]/g, "1");
}

function hashRecoveryCode(salt: string, code: string): string {
  return sha256Hex(`${salt}:${normaliseRecoveryCode(code)}`);
}

/** Replaces the user's recovery codes with ten new ones; returns them (shown once, never stored). */
export async function replaceRecoveryCodes(
  tx: Queryable,
  userId: string,
  salt: string,
  now: Date,
): Promise<string[]> {
  const codes = Array.from({ length: RECOVERY_CODE_COUNT }, () => {
    let raw = "";
    for (let i = 0; i < 10; i++) raw += RECOVERY_ALPHABET[randomInt(RECOVERY_ALPHABET.length)];
    return `${raw.slice(0, 5)}-${raw.slice(5)}`;
  });
  await tx.delete(twoFactorRecoveryCodes).where(eq(twoFactorRecoveryCodes.userId, userId));
  await tx.insert(twoFactorRecoveryCodes).values(
    codes.map((c) => ({
      id: newId("rcv"),
      userId,
      codeHash: hashRecoveryCode(salt, c),
      createdAt: now,
    })),
  );
  return codes;
}

/**
 * Spends one unused recovery code: every unused hash is compared in constant time, then the match
 * is marked used compare-and-set, so two sign-ins racing with the same code succeed once.
 */
export async function spendRecoveryCode(
  tx: Queryable,
  row: TwoFactorRow,
  code: string,
  now: Date,
): Promise<boolean> {
  const wanted = hashRecoveryCode(row.recoverySalt, code);
  const unused = await tx
    .select({ id: twoFactorRecoveryCodes.id, codeHash: twoFactorRecoveryCodes.codeHash })
    .from(twoFactorRecoveryCodes)
    .where(
      and(eq(twoFactorRecoveryCodes.userId, row.userId), isNull(twoFactorRecoveryCodes.usedAt)),
    );
  let match: string | undefined;
  for (const r of unused) if (safeEqual(r.codeHash, wanted)) match = r.id;
  if (!match) return false;
  const spent = await tx
    .update(twoFactorRecoveryCodes)
    .set({ usedAt: now })
    .where(and(eq(twoFactorRecoveryCodes.id, match), isNull(twoFactorRecoveryCodes.usedAt)))
    .returning({ id: twoFactorRecoveryCodes.id });
  return spent.length === 1;
}

/**
 * Checks a fresh second factor of an enabled authenticator inside `tx`: a TOTP code (consumed),
 * or — where `allowRecovery` — a recovery code (spent). Returns which kind matched, or null.
 */
export async function spendSecondFactor(
  tx: Queryable,
  keys: Keys,
  row: TwoFactorRow,
  code: string,
  now: Date,
  allowRecovery: boolean,
): Promise<"totp" | "recovery" | null> {
  if (isTotpShaped(code)) {
    const step = await matchTotp(decryptTotpSecret(keys, row), code, now);
    return step !== null && (await consumeTotpStep(tx, row.userId, step)) ? "totp" : null;
  }
  if (!allowRecovery) return null;
  return (await spendRecoveryCode(tx, row, code, now)) ? "recovery" : null;
}

export async function loadTwoFactor(
  db: Queryable,
  userId: string,
  forUpdate = false,
): Promise<TwoFactorRow | undefined> {
  const q = db.select().from(userTwoFactor).where(eq(userTwoFactor.userId, userId));
  const [row] = forUpdate ? await q.for("update") : await q;
  return row;
}
