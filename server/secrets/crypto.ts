import "server-only";
import { createCipheriv, createDecipheriv, randomBytes } from "node:crypto";
import type { Keys } from "../keys";

/**
 * AES-256-GCM encryption of workspace secret values. The key is HKDF-derived from the master
 * secret (purpose "secret-encryption"); the workspace id and secret name are authenticated as
 * additional data, so a ciphertext copied to another row (or another workspace) fails to decrypt
 * instead of silently yielding the wrong secret. `keyVersion` names the key so the master secret
 * can be rotated later by re-encrypting rows under a new version.
 */
export const CURRENT_KEY_VERSION = 1;
const IV_BYTES = 12;
const TAG_BYTES = 16;

export interface EncryptedSecret {
  /** base64 */
  ciphertext: string;
  /** base64, 12 bytes */
  iv: string;
  /** base64, 16 bytes */
  authTag: string;
  keyVersion: number;
}

export interface SecretLocation {
  workspaceId: string;
  name: string;
}

export class SecretDecryptionError extends Error {
  constructor(readonly secretName: string) {
    super(
      `Secret "${secretName}" cannot be decrypted: the master secret (SLUICE_SECRET or the data folder's master.key) changed, or the stored row was altered`,
    );
    this.name = "SecretDecryptionError";
  }
}

function aad({ workspaceId, name }: SecretLocation): Buffer {
  // Length-prefixed so ("a:b", "c") and ("a", "b:c") can never produce the same bytes.
  return Buffer.from(
    `sluice-secret\u0000${workspaceId.length}:${workspaceId}\u0000${name.length}:${name}`,
    "utf8",
  );
}

export interface SecretCipher {
  encrypt(plaintext: string, where: SecretLocation): EncryptedSecret;
  /** Throws SecretDecryptionError when the tag, the AAD or the key does not match. */
  decrypt(encrypted: EncryptedSecret, where: SecretLocation): string;
}

export function createSecretCipher(keys: Keys): SecretCipher {
  const keyFor = (version: number): Buffer => {
    if (version !== CURRENT_KEY_VERSION) throw new Error(`Unknown secret key version ${version}`);
    return keys.derive("secret-encryption");
  };
  return {
    encrypt(plaintext, where) {
      const iv = randomBytes(IV_BYTES);
      const cipher = createCipheriv("aes-256-gcm", keyFor(CURRENT_KEY_VERSION), iv, {
        authTagLength: TAG_BYTES,
      });
      cipher.setAAD(aad(where));
      const ciphertext = Buffer.concat([cipher.update(plaintext, "utf8"), cipher.final()]);
      return {
        ciphertext: ciphertext.toString("base64"),
        iv: iv.toString("base64"),
        authTag: cipher.getAuthTag().toString("base64"),
        keyVersion: CURRENT_KEY_VERSION,
      };
    },
    decrypt(encrypted, where) {
      const iv = Buffer.from(encrypted.iv, "base64");
      const tag = Buffer.from(encrypted.authTag, "base64");
      if (iv.length !== IV_BYTES || tag.length !== TAG_BYTES) {
        throw new SecretDecryptionError(where.name);
      }
      try {
        const decipher = createDecipheriv("aes-256-gcm", keyFor(encrypted.keyVersion), iv, {
          authTagLength: TAG_BYTES,
        });
        decipher.setAAD(aad(where));
        decipher.setAuthTag(tag);
        return Buffer.concat([
          decipher.update(Buffer.from(encrypted.ciphertext, "base64")),
          decipher.final(),
        ]).toString("utf8");
      } catch (e) {
        // GCM reports every mismatch (tag, AAD, key) the same way; the cause is kept for logs.
        throw Object.assign(new SecretDecryptionError(where.name), { cause: e });
      }
    },
  };
}
