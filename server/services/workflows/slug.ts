import "server-only";
import transliterate from "slugify";
import { and, eq, isNull, like } from "drizzle-orm";
import type { Queryable } from "@/db/client";
import { workflows } from "@/db/schema";

/**
 * A URL slug from a name: transliterated by the maintained `slugify` charmap (`Déploiement` →
 * `deploiement`, `Straße` → `strasse`, Cyrillic → Latin; the old NFKD-and-strip split accented
 * letters into `de-ploiement`), lower-case ASCII letters, digits and single dashes, ≤ 60 chars.
 * A name with nothing transliterable (e.g. only CJK) falls back to `workflow`.
 */
export function slugify(name: string): string {
  return (
    transliterate(name, { lower: true, strict: true, trim: true })
      .replace(/[^a-z0-9]+/g, "-")
      .slice(0, 60)
      .replace(/^-+|-+$/g, "") || "workflow"
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
