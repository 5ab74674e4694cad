import "server-only";
import { and, eq, isNull, like } from "drizzle-orm";
import type { Queryable } from "@/db/client";
import { workflows } from "@/db/schema";

export function slugify(name: string): string {
  return (
    name
      .normalize("NFKD")
      .toLowerCase()
      .replace(/[^a-z0-9]+/g, "-")
      .replace(/^-+|-+$/g, "")
      .slice(0, 60) || "workflow"
  );
}

/** The first free `slug`, `slug-2`, `slug-3`… among the workspace's live workflows. */
export async function uniqueWorkflowSlug(
  db: Queryable,
  workspaceId: string,
  name: string,
): Promise<string> {
  const base = slugify(name);
  const taken = new Set(
    (
      await db
        .select({ slug: workflows.slug })
        .from(workflows)
        .where(
          and(
            eq(workflows.workspaceId, workspaceId),
            isNull(workflows.deletedAt),
            like(workflows.slug, `${base}%`),
          ),
        )
    ).map((r) => r.slug),
  );
  if (!taken.has(base)) return base;
  for (let i = 2; ; i++) if (!taken.has(`${base}-${i}`)) return `${base}-${i}`;
}
