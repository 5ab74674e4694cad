import "server-only";
import { ProposalRuleSet } from "@/lib/schemas/proposal-rules";
import { checkRules } from "@/lib/workflow/proposal-rule-eval";
import { fromZodError, ValidationError } from "../../errors";

/**
 * A rule set as saved or previewed: the contract, then every rule's CEL checked. Each problem
 * names the rule and, for CEL errors, the line and column (`rules.<i>.expression`).
 */
export function parseRuleSet(input: unknown): ProposalRuleSet {
  const parsed = ProposalRuleSet.safeParse(input);
  if (!parsed.success) throw fromZodError(parsed.error, "Proposal rules");
  const issues = checkRules(parsed.data.rules);
  if (issues.length)
    throw new ValidationError(
      issues.length === 1
        ? issues[0]!.message
        : `${issues.length} rules have errors: ${issues.map((i) => i.message).join("; ")}`,
      issues.map((i) => ({
        path: ["rules", i.index, "expression"],
        message: i.message,
        ...(i.line !== undefined ? { line: i.line, column: i.column } : {}),
      })),
    );
  return parsed.data;
}
