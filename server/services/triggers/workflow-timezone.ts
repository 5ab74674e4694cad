import "server-only";
import { and, eq, getTableName, inArray, sql, type SQL } from "drizzle-orm";
import type { AnyPgColumn } from "drizzle-orm/pg-core";
import type { Queryable } from "@/db/client";
import { definitionContents, workflows, workflowVersions } from "@/db/schema";

/**
 * The `timezone` of the workflow's current published version (null when nothing is published),
 * as a column expression over a workflow id column — what its inheriting schedules fire in
 * (lib/triggers/schedule-zone.ts). Read at use, so a newly published zone applies at once.
 */
export function workflowTimezoneSql(workflowId: AnyPgColumn): SQL<string | null> {
  // Qualified by hand: drizzle prints a single-table select's columns bare, and a bare
  // "workflow_id" would bind to workflow_versions inside the subquery.
  const column = sql`${sql.identifier(getTableName(workflowId.table))}.${sql.identifier(workflowId.name)}`;
  return sql<string | null>`(select c.definition->>'timezone'
    from ${workflows} w
    join ${workflowVersions} v on v.id = w.current_version_id
    join ${definitionContents} c on c.workspace_id = w.workspace_id and c.hash = v.hash
    where w.id = ${column})`;
}

/** The workflows' zones by id (a workflow without a published version maps to null). */
export async function workflowTimezones(
  db: Queryable,
  workspaceId: string,
  workflowIds: string[],
): Promise<Map<string, string | null>> {
  const ids = [...new Set(workflowIds)];
  if (ids.length === 0) return new Map();
  const rows = await db
    .select({ id: workflows.id, timezone: workflowTimezoneSql(workflows.id) })
    .from(workflows)
    .where(and(eq(workflows.workspaceId, workspaceId), inArray(workflows.id, ids)));
  return new Map(rows.map((r) => [r.id, r.timezone]));
}
