import { z } from "zod";
import {
  ApplyProposalInput,
  CreateProposalInput,
  PROPOSAL_STATUSES,
  ReviewProposalInput,
} from "@/lib/schemas/proposals";
import { defineOperation } from "../operation";
import { IdParams, JsonObject, Limit, page } from "./common";

const tag = "Proposals";

export const listWorkflowProposalsOp = defineOperation({
  method: "GET",
  path: "/workflows/{id}/proposals",
  operationId: "listWorkflowProposals",
  summary: "A workflow's change proposals",
  description: "Newest first.",
  tag,
  minRole: "viewer",
  params: IdParams,
  query: z.object({
    status: z
      .array(z.enum(PROPOSAL_STATUSES))
      .optional()
      .meta({ description: "Repeat the key or separate with commas" }),
    limit: Limit(200),
    cursor: z.string().max(200).optional(),
  }),
  responses: { 200: { description: "One page", schema: page("Proposals") } },
});

/** The create contract minus `workflowId` (from the path); the service re-checks "exactly one of". */
const CreateProposalBody = z.strictObject(CreateProposalInput.shape).omit({ workflowId: true });

export const createProposalOp = defineOperation({
  method: "POST",
  path: "/workflows/{id}/proposals",
  operationId: "createProposal",
  summary: "Propose a change",
  description:
    'Exactly one of `definition`, `patch` (RFC 6902) or `intent` (needs an LLM), and `baseHash`: the published hash the change was written against, or `"current"` to take whatever is current (recorded as `baseRequested: "current"`). A missing or malformed `baseHash` is a 400 naming it; a well-formed hash that is not the current version is 409 stale_base. Other refusals carry their own codes (docs/proposals.md): 400 invalid_patch, 403 policy_violation, 412 self_modification_disabled…',
  tag,
  minRole: "editor",
  params: IdParams,
  body: CreateProposalBody,
  responses: {
    201: {
      description: "Created",
      schema: z.object({ id: z.string(), status: z.string(), risk: JsonObject }),
    },
    200: { description: "An identical open proposal already exists", schema: JsonObject },
  },
  errors: [409],
});

export const getProposalOp = defineOperation({
  method: "GET",
  path: "/proposals/{id}",
  operationId: "getProposal",
  summary: "Get a proposal",
  description: "Base, proposed and current definitions, diff, risk, verdicts, dry run, reviews.",
  tag,
  minRole: "viewer",
  params: IdParams,
  responses: { 200: { description: "The proposal", schema: JsonObject } },
});

export const reviewProposalOp = defineOperation({
  method: "POST",
  path: "/proposals/{id}/review",
  operationId: "reviewProposal",
  summary: "Approve or reject a proposal",
  tag,
  minRole: "approver",
  params: IdParams,
  body: ReviewProposalInput.omit({ proposalId: true }),
  responses: { 200: { description: "The new status", schema: z.object({ status: z.string() }) } },
  errors: [409, 410],
});

export const applyProposalOp = defineOperation({
  method: "POST",
  path: "/proposals/{id}/apply",
  operationId: "applyProposal",
  summary: "Apply an approved proposal",
  tag,
  minRole: "editor",
  params: IdParams,
  body: ApplyProposalInput.omit({ proposalId: true }),
  responses: { 200: { description: "The new version", schema: JsonObject } },
  errors: [409, 410, 412],
});
