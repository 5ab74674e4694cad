import { createHash } from "node:crypto";

/**
 * The Bearer value an Inngest SDK or client sends for a signing key: the `signkey-<env>-` prefix
 * kept, the hex key's bytes hashed with SHA-256. The executor accepts it; the app sends it to a
 * real Inngest's REST API.
 */
export function hashedSigningKey(signingKey: string): string {
  const prefix = /^signkey-\w+-/.exec(signingKey)?.[0] ?? "";
  const hex = signingKey.slice(prefix.length);
  return `${prefix}${createHash("sha256").update(Buffer.from(hex, "hex")).digest("hex")}`;
}
