import "server-only";
import { sql } from "drizzle-orm";
import type { Queryable, Tx } from "@/db/client";
import { beforeCommit } from "@/db/after-commit";
import { execRows } from "@/db/client";
import { historyChain } from "@/db/schema";
import { GENESIS_HASH, type HistoryKind } from "@/lib/schemas/history";
import { contentHashes, linkHash } from "./history-content";

export interface ChainEntry {
  workspaceId: string | null;
  kind: HistoryKind;
  rowId: string;
}

/**
 * Adds rows to their workspace's history chain in the caller's transaction. The append itself
 * runs right before commit (db/after-commit.ts beforeCommit): the head's row lock is then the
 * transaction's last lock, held only for a few statements, and rows written later in the same
 * transaction are covered as they finally are. A rolled-back savepoint drops its entries with
 * it. Rows without a workspace are not chained.
 */
export async function chainHistory(q: Queryable, entries: ChainEntry[]): Promise<void> {
  const real = entries.filter((e) => e.workspaceId !== null);
  if (!real.length) return;
  if (beforeCommit(q, (tx) => appendToChain(tx, real))) return;
  // Not inside a tracked transaction (a statement on the database handle): append now.
  await (q as { transaction: (fn: (tx: Tx) => Promise<void>) => Promise<void> }).transaction((tx) =>
    appendToChain(tx, real),
  );
}

/**
 * Appends entries, one workspace at a time in id order (two transactions touching the same two
 * workspaces lock their heads in the same order). The head row lock serialises appenders.
 */
export async function appendToChain(tx: Tx | Queryable, entries: ChainEntry[]): Promise<void> {
  const byWorkspace = new Map<string, ChainEntry[]>();
  for (const e of entries) {
    if (e.workspaceId === null) continue;
    const list = byWorkspace.get(e.workspaceId) ?? [];
    list.push(e);
    byWorkspace.set(e.workspaceId, list);
  }
  for (const ws of [...byWorkspace.keys()].sort()) {
    const list = byWorkspace.get(ws)!;
    const [head] = await execRows<{ seq: string | number; hash: string }>(
      tx,
      sql`insert into history_chain_heads (workspace_id, seq, hash)
          values (${ws}, 0, ${GENESIS_HASH})
          on conflict (workspace_id) do update set workspace_id = excluded.workspace_id
          returning seq, hash`,
    );
    let seq = Number(head!.seq);
    let prevHash = head!.hash;
    const hashes = new Map<HistoryKind, Map<string, string>>();
    for (const kind of new Set(list.map((e) => e.kind)))
      hashes.set(
        kind,
        await contentHashes(
          tx,
          ws,
          kind,
          list.filter((e) => e.kind === kind).map((e) => e.rowId),
        ),
      );
    const rows: (typeof historyChain.$inferInsert)[] = [];
    for (const e of list) {
      const contentHash = hashes.get(e.kind)!.get(e.rowId);
      // A row written and deleted in the same transaction, or named wrongly: a bug, never chained.
      if (!contentHash) throw new Error(`history chain: no ${e.kind} row ${e.rowId} in ${ws}`);
      seq += 1;
      const hash = linkHash({ prevHash, seq, kind: e.kind, rowId: e.rowId, contentHash });
      rows.push({
        workspaceId: ws,
        seq,
        kind: e.kind,
        rowId: e.rowId,
        contentHash,
        prevHash,
        hash,
      });
      prevHash = hash;
    }
    await tx.insert(historyChain).values(rows);
    await tx.execute(
      sql`update history_chain_heads set seq = ${seq}, hash = ${prevHash}, updated_at = now()
          where workspace_id = ${ws}`,
    );
  }
}
