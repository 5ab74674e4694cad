import "server-only";
import { VerifyHistoryInput } from "@/lib/schemas/history";
import { ProposalRuleSet } from "@/lib/schemas/proposal-rules";
import { verifyHistory } from "../services/history/verify-history";
import { getProposalRules } from "../services/proposals/get-proposal-rules";
import { previewProposalRules } from "../services/proposals/preview-proposal-rules";
import { updateProposalRules } from "../services/proposals/update-proposal-rules";
import { READ, type ToolKit } from "./tool-kit";

/**
 * The workspace's change governance for agents: verifying the tamper-evident history, and the
 * proposal rules (read, preview against recent proposals, replace). Same roles as /api/v1.
 */
export function registerGovernanceTools({ tool, ctx }: ToolKit): void {
  tool(
    "verify_history",
    {
      title: "Verify the tamper-evident history",
      description:
        "Recomputes the workspace's hash chain (published versions, proposal reviews and applies, approval decisions, audit rows) from the rows' current content. Answers { ok, checked, pruned, head: { seq, hash }, firstBroken, verifiedAt }; firstBroken names the first broken link (seq, kind, rowId, problem, message) or is null. Pass `anchor` (a head from an earlier verification) to check the chain still contains it unchanged.",
      minRole: "admin",
      annotations: READ,
      input: VerifyHistoryInput.shape,
    },
    (args) => verifyHistory({ ctx, input: args }),
  );

  tool(
    "get_proposal_rules",
    {
      title: "Read the proposal rules",
      description:
        "The workspace's proposal rules: CEL expressions over a proposal's change summary (variables in docs/proposals.md), each with an effect refuse | require_admin_review | warn and a message; `allowedDomains` (workspace.allowedDomains in rules); and `presets` to start from.",
      minRole: "viewer",
      annotations: READ,
      input: {},
    },
    () => getProposalRules({ ctx }),
  );

  const ruleSet = {
    rules: ProposalRuleSet.shape.rules.describe(
      "The whole rule list ({ name, expression (CEL), effect, message }); names are unique",
    ),
    allowedDomains: ProposalRuleSet.shape.allowedDomains.describe(
      "Hosts (or *.example.com) changes may call: workspace.allowedDomains in rules",
    ),
  };

  tool(
    "preview_proposal_rules",
    {
      title: "Preview proposal rules on recent proposals",
      description:
        "Evaluates the given rules, unsaved, against the workspace's 20 most recent proposals (newest first): each proposal with every rule's verdict and the names of the rules that fire. A rule whose CEL does not compile is refused with its name, line and column.",
      minRole: "admin",
      annotations: READ,
      input: ruleSet,
    },
    (args) => previewProposalRules({ ctx, input: args }),
  );

  tool(
    "update_proposal_rules",
    {
      title: "Replace the proposal rules",
      description:
        "Replaces the workspace's proposal rules with the given list (read them first with get_proposal_rules and send the whole list back). Every rule's CEL is checked first: a bad rule is refused with its name, line and column, and nothing is saved. Audited with before and after.",
      minRole: "admin",
      annotations: { readOnlyHint: false, destructiveHint: true, idempotentHint: true },
      input: ruleSet,
    },
    (args) => updateProposalRules({ ctx, input: args }),
  );
}
