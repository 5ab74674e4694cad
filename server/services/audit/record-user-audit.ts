import "server-only";
import { sql } from "drizzle-orm";
import { execRows, type Queryable } from "@/db/client";
import type { ServiceContext } from "../context";
import { chainHistory } from "../history/chain-history";

export interface UserAuditEntry {
  /** The account the event is about, by id or by the email someone typed (may match no one). */
  user: { id: string } | { email: string };
  action: string;
  /** `user`: the account itself acted (signed in); `anonymous`: someone not yet signed in. */
  actor: "user" | "anonymous";
  data?: Record<string, unknown>;
}

/**
 * Audit rows for events about an account rather than a workspace (sign-ins, failures, lockouts).
 * Decision: one row in every workspace the account belongs to, so each workspace's admins see
 * sign-in activity of their members; an email that matches no account (or an account without a
 * workspace) gets one row without a workspace, visible to operators in the database only — and
 * the email itself is not written. One INSERT … SELECT either way, so a known and an unknown
 * email cost the same statements (no account enumeration through timing).
 */
export async function recordUserAudit(
  tx: Queryable,
  ctx: ServiceContext,
  entry: UserAuditEntry,
): Promise<void> {
  const match =
    "id" in entry.user ? sql`u.id = ${entry.user.id}` : sql`u.email = ${entry.user.email}`;
  const actorType = entry.actor === "user" ? sql`'user'` : sql`'anonymous'`;
  const actorId = entry.actor === "user" ? sql`u.id` : sql`null`;
  const rows = await execRows<{ id: string | number; workspace_id: string | null }>(
    tx,
    sql`
    insert into audit_events
      (workspace_id, actor_type, actor_id, action, target_type, target_id, data,
       client_address, user_agent, created_at)
    select m.workspace_id,
           case when u.id is null then 'anonymous' else ${actorType} end,
           ${actorId},
           ${entry.action},
           case when u.id is null then null else 'user' end,
           u.id,
           ${JSON.stringify(entry.data ?? {})}::jsonb,
           ${ctx.client?.address ?? null},
           ${ctx.client?.userAgent ?? null},
           ${ctx.now().toISOString()}::timestamptz
    from (select 1) as one
    left join users u on ${match}
    left join memberships m on m.user_id = u.id
    returning id, workspace_id`,
  );
  await chainHistory(
    tx,
    rows.map((r) => ({ workspaceId: r.workspace_id, kind: "audit" as const, rowId: String(r.id) })),
  );
}
