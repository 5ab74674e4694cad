import "server-only";
import { eq } from "drizzle-orm";
import { proposals } from "@/db/schema";
import { RetryDryRunInput } from "@/lib/schemas/proposals";
import { fromZodError } from "../../errors";
import { requireRole, type ServiceContext } from "../context";
import { recordAudit } from "../audit/record-audit";
import { requestDryRuns } from "./request-dry-runs";
import { loadProposal } from "./load-proposal";

/** Requests a fresh dry run (a newer request number makes any running one's result stale). */
export async function retryDryRun({ ctx, input }: { ctx: ServiceContext; input: unknown }) {
  const ws = requireRole(ctx, "editor");
  const parsed = RetryDryRunInput.safeParse(input);
  if (!parsed.success) throw fromZodError(parsed.error, "Dry run");
  return ctx.db.transaction(async (tx) => {
    const p = await loadProposal(tx, ws.id, parsed.data.proposalId, { forUpdate: true });
    const now = ctx.now();
    const [row] = await requestDryRuns(tx, ws.id, eq(proposals.id, p.id), now);
    await recordAudit(tx, ctx, {
      workspaceId: ws.id,
      action: "proposal.dry_run_requested",
      targetType: "proposal",
      targetId: p.id,
      data: { request: row!.request },
    });
    return { ok: true as const };
  });
}
