import "server-only";
import { desc, eq } from "drizzle-orm";
import { proposals } from "@/db/schema";
import { RULE_PREVIEW_PROPOSALS } from "@/lib/schemas/proposal-rules";
import { requireRole, type ServiceContext } from "../context";
import { parseRuleSet } from "./rule-set-input";
import { currentRuleVerdicts } from "./rule-verdicts";

/**
 * Which of the given (unsaved) rules would fire on each of the workspace's last 20 proposals
 * (admin). Nothing is written; a bad rule is refused exactly as saving would refuse it.
 */
export async function previewProposalRules({
  ctx,
  input,
}: {
  ctx: ServiceContext;
  input: unknown;
}) {
  const ws = requireRole(ctx, "admin");
  const set = parseRuleSet(input);
  const recent = await ctx.db
    .select()
    .from(proposals)
    .where(eq(proposals.workspaceId, ws.id))
    .orderBy(desc(proposals.createdAt), desc(proposals.id))
    .limit(RULE_PREVIEW_PROPOSALS);
  const items = [];
  for (const p of recent) {
    const verdicts = await currentRuleVerdicts(ctx.db, p, set);
    items.push({
      proposalId: p.id,
      workflowId: p.workflowId,
      summary: p.summary,
      status: p.status,
      createdAt: p.createdAt.toISOString(),
      verdicts,
      fired: verdicts.filter((v) => v.fired).map((v) => v.rule),
    });
  }
  return { items };
}
