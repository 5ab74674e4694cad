import "server-only";
import { and, eq } from "drizzle-orm";
import type { Queryable } from "@/db/client";
import { proposals } from "@/db/schema";
import { NotFoundError } from "../../errors";

export type ProposalRow = typeof proposals.$inferSelect;

/** A proposal of the workspace, or NotFound (other workspaces' ids look exactly the same). */
export async function loadProposal(
  db: Queryable,
  workspaceId: string,
  proposalId: string,
  opts: { forUpdate?: boolean } = {},
): Promise<ProposalRow> {
  const q = db
    .select()
    .from(proposals)
    .where(and(eq(proposals.id, proposalId), eq(proposals.workspaceId, workspaceId)))
    .limit(1);
  const [row] = opts.forUpdate ? await q.for("update") : await q;
  if (!row) throw new NotFoundError("Proposal", proposalId);
  return row;
}
