import "server-only";
import { and, eq, inArray } from "drizzle-orm";
import type { Queryable } from "@/db/client";
import { secrets } from "@/db/schema";
import { ValidationError } from "../../errors";
import type { Keys } from "../../keys";
import { createSecretCipher } from "../../secrets/crypto";

/** A run or an integration names secrets that the workspace does not have. */
export class MissingSecretsError extends ValidationError {
  constructor(readonly names: string[]) {
    super(
      `${names.length === 1 ? "Secret" : "Secrets"} ${names.map((n) => `"${n}"`).join(", ")} ${names.length === 1 ? "does" : "do"} not exist in this workspace; create ${names.length === 1 ? "it" : "them"} under Settings → Secrets or fix the name.`,
      names.map((n) => ({ path: ["secrets", n], message: `Secret "${n}" does not exist` })),
    );
  }
}

/**
 * Internal (no authorization: the run engine and integrations call it for a workspace they already
 * act in). Decrypts the named secrets of one workspace. Throws MissingSecretsError naming every
 * missing secret, and SecretDecryptionError (an internal failure) when a row cannot be decrypted.
 */
export async function resolveSecrets(
  db: Queryable,
  keys: Keys,
  workspaceId: string,
  names: Iterable<string>,
): Promise<Record<string, string>> {
  const wanted = [...new Set(names)];
  const out: Record<string, string> = Object.create(null) as Record<string, string>;
  if (wanted.length === 0) return out;
  const rows = await db
    .select({
      name: secrets.name,
      ciphertext: secrets.ciphertext,
      iv: secrets.iv,
      authTag: secrets.authTag,
      keyVersion: secrets.keyVersion,
    })
    .from(secrets)
    .where(and(eq(secrets.workspaceId, workspaceId), inArray(secrets.name, wanted)));
  const cipher = createSecretCipher(keys);
  for (const row of rows) out[row.name] = cipher.decrypt(row, { workspaceId, name: row.name });
  const missing = wanted.filter((n) => !(n in out));
  if (missing.length) throw new MissingSecretsError(missing);
  return out;
}
