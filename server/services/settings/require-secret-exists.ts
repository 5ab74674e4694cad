import "server-only";
import { and, eq } from "drizzle-orm";
import type { Queryable } from "@/db/client";
import { secrets } from "@/db/schema";
import { ValidationError } from "../../errors";

/** Integrations name secrets; saving one that names a missing secret is refused up front. */
export async function requireSecretExists(
  tx: Queryable,
  workspaceId: string,
  name: string | undefined,
  path: string[],
) {
  if (!name) return;
  const [row] = await tx
    .select({ name: secrets.name })
    .from(secrets)
    .where(and(eq(secrets.workspaceId, workspaceId), eq(secrets.name, name)));
  if (!row) {
    throw new ValidationError(
      `Secret ${name} does not exist; create it under Settings → Secrets first.`,
      [{ path, message: `Secret ${name} does not exist` }],
    );
  }
}
