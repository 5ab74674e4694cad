import "server-only";
import { and, eq } from "drizzle-orm";
import { LRUCache } from "lru-cache";
import type { Queryable } from "@/db/client";
import { definitionContents } from "@/db/schema";
import { WorkflowDefinition } from "@/lib/workflow";
import { NotFoundError } from "../../errors";

// Contents are immutable by hash, so a parsed definition never goes stale; on globalThis because
// Next loads server modules more than once. Callers must not mutate what they get.
type Global = typeof globalThis & { __sluiceDefinitions?: LRUCache<string, WorkflowDefinition> };
const g = globalThis as Global;
const definitions = (g.__sluiceDefinitions ??= new LRUCache<string, WorkflowDefinition>({
  max: 500,
}));

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

/** A version's definition, parsed once per process (run creation, webhooks, triggers). */
export async function definitionByHash(
  db: Queryable,
  workspaceId: string,
  hash: string,
): Promise<WorkflowDefinition> {
  const key = `${workspaceId}:${hash}`;
  const hit = definitions.get(key);
  if (hit) return hit;
  const parsed = WorkflowDefinition.parse(await contentOf(db, workspaceId, hash));
  definitions.set(key, parsed);
  return parsed;
}
