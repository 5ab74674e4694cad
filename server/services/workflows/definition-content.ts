import "server-only";
import type { Queryable } from "@/db/client";
import { definitionContents } from "@/db/schema";

/**
 * Stores a definition's content by hash (versions, proposals, inline and test runs point at it).
 * Content is immutable per hash, so storing the same hash again is a no-op.
 */
export async function storeDefinitionContent(
  tx: Queryable,
  row: typeof definitionContents.$inferInsert,
): Promise<void> {
  await tx.insert(definitionContents).values(row).onConflictDoNothing();
}
