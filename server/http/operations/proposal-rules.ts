import { z } from "zod";
import {
  PreviewProposalRulesInput,
  ProposalRule,
  RuleVerdict,
  UpdateProposalRulesInput,
} from "@/lib/schemas/proposal-rules";
import { defineOperation } from "../operation";

const Timestamp = z.iso.datetime({ offset: true });

/** Not exported: index.ts takes every export of this module for an operation. */
const RuleSetResponse = z
  .object({
    rules: z.array(ProposalRule),
    allowedDomains: z.array(z.string()),
  })
  .meta({ id: "ProposalRuleSet" });

export const getProposalRulesOp = defineOperation({
  method: "GET",
  path: "/proposal-rules",
  operationId: "getProposalRules",
  summary: "The workspace's proposal rules",
  description:
    "CEL rules over a proposal's change summary (docs/proposals.md lists the variables), each with an effect: `refuse`, `require_admin_review` or `warn`; plus `presets` to start from.",
  tag: "Proposals",
  minRole: "viewer",
  responses: {
    200: {
      description: "The rule set and the presets",
      schema: RuleSetResponse.extend({ presets: z.array(ProposalRule) }),
    },
  },
});

export const updateProposalRulesOp = defineOperation({
  method: "PUT",
  path: "/proposal-rules",
  operationId: "updateProposalRules",
  summary: "Replace the workspace's proposal rules",
  description:
    'Every rule\'s CEL is checked first: a 400 names the rule and the line and column of the error (`Rule "…", line 2 column 14: …`; `error.details.issues[].path` is `rules.<i>.expression`).',
  tag: "Proposals",
  minRole: "admin",
  body: UpdateProposalRulesInput,
  responses: { 200: { description: "The saved rule set", schema: RuleSetResponse } },
});

export const previewProposalRulesOp = defineOperation({
  method: "POST",
  path: "/proposal-rules/preview",
  operationId: "previewProposalRules",
  summary: "Which rules would fire on the last 20 proposals",
  description:
    "Evaluates the given (unsaved) rules against the workspace's 20 most recent proposals, newest first. Nothing is saved; bad rules are refused as PUT refuses them.",
  tag: "Proposals",
  minRole: "admin",
  body: PreviewProposalRulesInput,
  responses: {
    200: {
      description: "Each proposal with every rule's verdict",
      schema: z.object({
        items: z.array(
          z.object({
            proposalId: z.string(),
            workflowId: z.string(),
            summary: z.string(),
            status: z.string(),
            createdAt: Timestamp,
            verdicts: z.array(RuleVerdict),
            fired: z.array(z.string()),
          }),
        ),
      }),
    },
  },
});
