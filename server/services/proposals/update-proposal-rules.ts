import "server-only";
import { sql } from "drizzle-orm";
import { workspaces } from "@/db/schema";
import { recordAudit } from "../audit/record-audit";
import { requireRole, type ServiceContext } from "../context";
import { readRawSettings } from "../settings/read-settings";
import { parseRuleSet } from "./rule-set-input";
import { loadRuleSet } from "./rule-verdicts";

/**
 * Replaces the workspace's proposal rules (admin). Every rule's CEL is checked first; the audit
 * row carries before and after. Only the `proposalRules` settings key is written.
 */
export async function updateProposalRules({ ctx, input }: { ctx: ServiceContext; input: unknown }) {
  const ws = requireRole(ctx, "admin");
  const after = parseRuleSet(input);
  await ctx.db.transaction(async (tx) => {
    await readRawSettings(tx, ws.id, true);
    const before = await loadRuleSet(tx, ws.id);
    await tx
      .update(workspaces)
      .set({
        settings: sql`coalesce(${workspaces.settings}, '{}'::jsonb) || jsonb_build_object('proposalRules', ${JSON.stringify(after)}::jsonb)`,
      })
      .where(sql`${workspaces.id} = ${ws.id}`);
    await recordAudit(tx, ctx, {
      action: "workspace.proposal_rules_updated",
      targetType: "workspace",
      targetId: ws.id,
      data: { before, after },
    });
  });
  return after;
}
