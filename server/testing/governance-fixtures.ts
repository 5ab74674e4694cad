import { sql } from "drizzle-orm";
import { execRows, type Db } from "@/db/client";

/** A published-able workflow calling `url`; a proposal changing the URL adds a domain. */
export const governedDefinition = (url: string) => ({
  schemaVersion: 1,
  name: "Governed",
  constraints: { allowSelfModification: true },
  steps: [{ id: "call", type: "http", config: { url, method: "GET" } }],
});

/** The settings preset's domain rule, with a message: fires on a domain outside the allowlist. */
export const DOMAIN_RULE = {
  name: "New domain needs an admin",
  expression: "change.addedDomains.exists(d, !hostIn(d, workspace.allowedDomains))",
  effect: "require_admin_review",
  message: "outside the allowlist",
};

/**
 * Rewrites the data of the workspace's audit row with `action`, as an intruder with database
 * access would: audit_events is append-only (a trigger refuses updates), so triggers are off for
 * the edit. Returns the edited row's id.
 */
export async function forgeAuditRow(db: Db, workspaceId: string, action: string): Promise<number> {
  const [row] = await execRows<{ id: number }>(
    db,
    sql`select id from audit_events where workspace_id = ${workspaceId} and action = ${action}`,
  );
  if (!row) throw new Error(`no audit row ${action} in ${workspaceId}`);
  await db.transaction(async (tx) => {
    await tx.execute(sql`set local session_replication_role = replica`);
    await tx.execute(
      sql`update audit_events set data = '{"forged": true}'::jsonb where id = ${row.id}`,
    );
  });
  return row.id;
}
