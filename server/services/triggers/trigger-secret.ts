import "server-only";
import { randomBytes } from "node:crypto";
import type { EncryptedTriggerSecret } from "@/db/schema";
import type { Keys } from "../../keys";
import { createSecretCipher } from "../../secrets/crypto";

/** A new webhook signing secret: `whsec_` + base64 of 32 random bytes (256 bits). */
export function generateWebhookSecret(): string {
  return `whsec_${randomBytes(32).toString("base64")}`;
}

const where = (workspaceId: string, triggerId: string) => ({
  workspaceId,
  name: `webhook:${triggerId}`,
});

export function sealWebhookSecret(
  keys: Keys,
  workspaceId: string,
  triggerId: string,
  secret: string,
): EncryptedTriggerSecret {
  return createSecretCipher(keys).encrypt(secret, where(workspaceId, triggerId));
}

export function openWebhookSecret(
  keys: Keys,
  workspaceId: string,
  triggerId: string,
  sealed: EncryptedTriggerSecret,
): string {
  return createSecretCipher(keys).decrypt(sealed, where(workspaceId, triggerId));
}
