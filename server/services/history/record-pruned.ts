import "server-only";
import { sql, type SQLWrapper } from "drizzle-orm";
import { execRows, type Queryable } from "@/db/client";
import { auditEvents } from "@/db/schema";
import type { HistoryKind } from "@/lib/schemas/history";
import { chainHistory } from "./chain-history";
import { PRUNED_ACTION } from "./verify-history";

const IDS_PER_ROW = 1_000;

/**
 * Retention deletes chained rows (approval decisions with their runs, reviews and applies with
 * old proposals). Before it does, this records which ones in a chained `history.pruned` audit
 * row per workspace (in the deleting transaction), so verification tells pruning from tampering.
 * `rows` selects candidate `(workspace_id, id)` pairs; only those in the chain are recorded.
 */
export async function recordPruned(
  tx: Queryable,
  kind: HistoryKind,
  rows: SQLWrapper,
  now: Date,
): Promise<void> {
  const chained = await execRows<{ workspace_id: string; id: string }>(
    tx,
    sql`select r.workspace_id, r.id from (${rows}) as r (workspace_id, id)
        join history_chain c on c.workspace_id = r.workspace_id and c.kind = ${kind}
          and c.row_id = r.id
        order by r.workspace_id, r.id`,
  );
  const byWorkspace = new Map<string, string[]>();
  for (const r of chained)
    byWorkspace.set(r.workspace_id, [...(byWorkspace.get(r.workspace_id) ?? []), r.id]);
  for (const [workspaceId, ids] of byWorkspace) {
    for (let i = 0; i < ids.length; i += IDS_PER_ROW) {
      const [row] = await tx
        .insert(auditEvents)
        .values({
          workspaceId,
          actorType: "system",
          actorId: "retention",
          action: PRUNED_ACTION,
          targetType: kind,
          data: { kind, ids: ids.slice(i, i + IDS_PER_ROW) },
          createdAt: now,
        })
        .returning({ id: auditEvents.id });
      await chainHistory(tx, [{ workspaceId, kind: "audit", rowId: String(row!.id) }]);
    }
  }
}
