import { z } from "zod";

/**
 * A workspace's proposal rules (issue #29 item 8): CEL expressions over a proposal's change
 * summary (lib/workflow/proposal-rule-eval.ts documents the variables). Stored in the
 * workspace's settings under `proposalRules`; bounded so evaluation stays cheap.
 */
export const RULE_EFFECTS = ["refuse", "require_admin_review", "warn"] as const;
export const RuleEffect = z.enum(RULE_EFFECTS);
export type RuleEffect = z.infer<typeof RuleEffect>;

export const MAX_RULES = 50;
export const MAX_RULE_EXPRESSION = 1_000;
export const MAX_ALLOWED_DOMAINS = 200;
/** How many recent proposals the settings preview evaluates rules against. */
export const RULE_PREVIEW_PROPOSALS = 20;

export const ProposalRule = z
  .object({
    name: z.string().trim().min(1, "Give the rule a name").max(80),
    expression: z.string().trim().min(1, "Write a CEL expression").max(MAX_RULE_EXPRESSION),
    effect: RuleEffect,
    /** Shown with the verdict when the rule fires. */
    message: z.string().max(300).default(""),
  })
  .strict();
export type ProposalRule = z.infer<typeof ProposalRule>;

const Domain = z
  .string()
  .trim()
  .toLowerCase()
  .regex(/^(\*\.)?[a-z0-9-]+(\.[a-z0-9-]+)*$/, "a host name, or *.example.com");

export const ProposalRuleSet = z
  .object({
    rules: z
      .array(ProposalRule)
      .max(MAX_RULES)
      .refine((rules) => new Set(rules.map((r) => r.name)).size === rules.length, {
        message: "Rule names must be unique",
      }),
    /** `workspace.allowedDomains` in rules: hosts (or *.patterns) changes may call. */
    allowedDomains: z.array(Domain).max(MAX_ALLOWED_DOMAINS).default([]),
  })
  .strict();
export type ProposalRuleSet = z.infer<typeof ProposalRuleSet>;

export const UpdateProposalRulesInput = ProposalRuleSet;
export type UpdateProposalRulesInput = z.infer<typeof UpdateProposalRulesInput>;

export const PreviewProposalRulesInput = ProposalRuleSet;
export type PreviewProposalRulesInput = z.infer<typeof PreviewProposalRulesInput>;

/** One rule's verdict on one proposal. `fired` with an `error` means it could not be evaluated. */
export const RuleVerdict = z.object({
  rule: z.string(),
  effect: RuleEffect,
  fired: z.boolean(),
  message: z.string(),
  error: z.string().optional(),
});
export type RuleVerdict = z.infer<typeof RuleVerdict>;

/** Presets the settings screen offers (the two examples, plus a warning). */
export const RULE_PRESETS: readonly ProposalRule[] = [
  {
    name: "New domain outside the allowlist needs an admin review",
    expression: "change.addedDomains.exists(d, !hostIn(d, workspace.allowedDomains))",
    effect: "require_admin_review",
    message: "The change calls a domain outside the workspace's allowlist.",
  },
  {
    name: "Removing an approval gate is refused",
    expression: "size(change.removedGates) > 0",
    effect: "refuse",
    message: "Approval gates cannot be removed through a proposal.",
  },
  {
    name: "Warn on script steps",
    expression: '"script" in change.stepTypesAdded',
    effect: "warn",
    message: "The change adds a script step.",
  },
];
