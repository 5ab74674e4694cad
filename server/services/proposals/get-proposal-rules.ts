import "server-only";
import { RULE_PRESETS } from "@/lib/schemas/proposal-rules";
import { requireRole, type ServiceContext } from "../context";
import { loadRuleSet } from "./rule-verdicts";

/** The workspace's proposal rules and the presets (any member: proposers should know them). */
export async function getProposalRules({ ctx }: { ctx: ServiceContext }) {
  const ws = requireRole(ctx, "viewer");
  const set = await loadRuleSet(ctx.db, ws.id);
  return { ...set, presets: RULE_PRESETS };
}
