import "server-only";
import { and, eq } from "drizzle-orm";
import type { Queryable } from "@/db/client";
import { definitionContents } from "@/db/schema";
import { NotFoundError } from "../../errors";

/** The stored definition behind a version hash (scoped to the workspace). */
export async function contentOf(
  db: Queryable,
  workspaceId: string,
  hash: string,
): Promise<Record<string, unknown>> {
  const [row] = await db
    .select({ definition: definitionContents.definition })
    .from(definitionContents)
    .where(and(eq(definitionContents.workspaceId, workspaceId), eq(definitionContents.hash, hash)))
    .limit(1);
  if (!row) throw new NotFoundError("Definition content", hash);
  return row.definition;
}
