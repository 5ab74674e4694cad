import "server-only";
import { and, asc, eq, gt, sql } from "drizzle-orm";
import { execRows, type Queryable } from "@/db/client";
import { historyChain, historyChainHeads } from "@/db/schema";
import {
  GENESIS_HASH,
  HISTORY_KINDS,
  VerifyHistoryInput,
  type BrokenLink,
  type HistoryKind,
  type VerifyHistoryResult,
} from "@/lib/schemas/history";
import { fromZodError } from "../../errors";
import { requireRole, type ServiceContext } from "../context";
import { contentHashes, linkHash } from "./history-content";

const PAGE = 500;
export const PRUNED_ACTION = "history.pruned";

type Link = typeof historyChain.$inferSelect;

/**
 * Recomputes the workspace's history chain from the covered rows' current content (admin and
 * above) and names the first broken link: a changed or deleted row, a link whose hashes do not
 * follow from the previous one, a gap in the sequence, a head that does not match the last link,
 * or an anchor (a head from an earlier export) the chain no longer contains. Rows deleted by
 * retention are not breaks: retention records them in a chained `history.pruned` audit row.
 */
export async function verifyHistory({ ctx, input }: { ctx: ServiceContext; input?: unknown }) {
  const ws = requireRole(ctx, "admin");
  const parsed = VerifyHistoryInput.safeParse(input ?? {});
  if (!parsed.success) throw fromZodError(parsed.error, "Verification");
  return verifyWorkspaceChain(ctx.db, ws.id, ctx.now(), parsed.data.anchor);
}

/** The verification itself, for a workspace id (tests and the CLI's server side share it). */
export async function verifyWorkspaceChain(
  db: Queryable,
  workspaceId: string,
  now: Date,
  anchor?: { seq: number; hash: string },
): Promise<VerifyHistoryResult> {
  const pruned = await prunedRows(db, workspaceId);
  let prev = { seq: 0, hash: GENESIS_HASH };
  let checked = 0;
  let prunedSeen = 0;
  let firstBroken: BrokenLink | null = null;
  let anchorSeen = false;
  const broken = (link: Link, problem: BrokenLink["problem"], message: string): BrokenLink => ({
    seq: link.seq,
    kind: link.kind as HistoryKind,
    rowId: link.rowId,
    problem,
    message,
  });
  scan: for (;;) {
    const links = await db
      .select()
      .from(historyChain)
      .where(and(eq(historyChain.workspaceId, workspaceId), gt(historyChain.seq, prev.seq)))
      .orderBy(asc(historyChain.seq))
      .limit(PAGE);
    if (!links.length) break;
    const current = await currentHashes(db, workspaceId, links);
    for (const link of links) {
      checked += 1;
      const what = `${link.kind} ${link.rowId} (link ${link.seq})`;
      if (link.seq !== prev.seq + 1) {
        firstBroken = broken(
          link,
          "seq_gap",
          `Links ${prev.seq + 1}–${link.seq - 1} are missing before ${what}: history entries were deleted`,
        );
        break scan;
      }
      if (link.prevHash !== prev.hash) {
        firstBroken = broken(
          link,
          "link_broken",
          `${what} says the previous link's hash is ${link.prevHash}, but link ${prev.seq} hashes to ${prev.hash}`,
        );
        break scan;
      }
      const recomputed = linkHash(link);
      if (recomputed !== link.hash) {
        firstBroken = broken(
          link,
          "link_broken",
          `${what} stores hash ${link.hash}, but its fields hash to ${recomputed}`,
        );
        break scan;
      }
      const now = current.get(link.kind as HistoryKind)?.get(link.rowId);
      if (now === undefined) {
        if (pruned.get(link.kind)?.has(link.rowId)) prunedSeen += 1;
        else {
          firstBroken = broken(
            link,
            "row_missing",
            `${what} was deleted from the database, and no retention run recorded pruning it`,
          );
          break scan;
        }
      } else if (now !== link.contentHash) {
        firstBroken = broken(
          link,
          "content_changed",
          `${what} was changed after it was recorded: its content now hashes to ${now}, the chain recorded ${link.contentHash}`,
        );
        break scan;
      }
      if (anchor && link.seq === anchor.seq) {
        anchorSeen = true;
        if (link.hash !== anchor.hash) {
          firstBroken = broken(
            link,
            "anchor_mismatch",
            `Link ${link.seq} hashes to ${link.hash}, but the anchor you gave says ${anchor.hash}: the chain was rewritten since`,
          );
          break scan;
        }
      }
      prev = { seq: link.seq, hash: link.hash };
    }
    if (links.length < PAGE) break;
  }
  const [head] = await db
    .select({ seq: historyChainHeads.seq, hash: historyChainHeads.hash })
    .from(historyChainHeads)
    .where(eq(historyChainHeads.workspaceId, workspaceId));
  const headNow = head ?? { seq: 0, hash: GENESIS_HASH };
  if (!firstBroken && (headNow.seq !== prev.seq || headNow.hash !== prev.hash)) {
    firstBroken = {
      seq: prev.seq,
      kind: "audit",
      rowId: "",
      problem: "head_mismatch",
      message: `The chain's head is link ${headNow.seq} (${headNow.hash}), but its last link is ${prev.seq} (${prev.hash}): links at the end were deleted or rewritten`,
    };
  }
  if (!firstBroken && anchor && !anchorSeen)
    firstBroken = {
      seq: anchor.seq,
      kind: "audit",
      rowId: "",
      problem: "anchor_mismatch",
      message: `The chain has no link ${anchor.seq}, which the anchor you gave names`,
    };
  return {
    ok: firstBroken === null,
    checked,
    pruned: prunedSeen,
    head: headNow,
    firstBroken,
    verifiedAt: now.toISOString(),
  };
}

async function currentHashes(db: Queryable, workspaceId: string, links: Link[]) {
  const out = new Map<HistoryKind, Map<string, string>>();
  for (const kind of HISTORY_KINDS) {
    const ids = links.filter((l) => l.kind === kind).map((l) => l.rowId);
    if (ids.length) out.set(kind, await contentHashes(db, workspaceId, kind, ids));
  }
  return out;
}

/**
 * Rows retention deleted, by kind, from chained `history.pruned` audit rows only: a pruning
 * note written outside the chain excuses nothing (and the note itself is verified as a link).
 */
async function prunedRows(db: Queryable, workspaceId: string) {
  const rows = await execRows<{ data: { kind?: string; ids?: unknown } }>(
    db,
    sql`select a.data from audit_events a
        join history_chain c on c.workspace_id = a.workspace_id and c.kind = 'audit'
          and c.row_id = a.id::text
        where a.workspace_id = ${workspaceId} and a.action = ${PRUNED_ACTION}`,
  );
  const out = new Map<string, Set<string>>();
  for (const { data } of rows) {
    if (typeof data?.kind !== "string" || !Array.isArray(data.ids)) continue;
    const set = out.get(data.kind) ?? new Set<string>();
    for (const id of data.ids) if (typeof id === "string") set.add(id);
    out.set(data.kind, set);
  }
  return out;
}
