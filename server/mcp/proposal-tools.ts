import "server-only";
import { z } from "zod";
import { ListProposalsInput, ProposalBaseHash, ProposalStatus } from "@/lib/schemas/proposals";
import { createMcpProposal } from "../services/proposals/create-mcp-proposal";
import { getInflightImpact } from "../services/proposals/get-inflight-impact";
import { getProposalReplay } from "../services/proposals/get-proposal-replay";
import { listProposals } from "../services/proposals/list-proposals";
import { findWorkflow } from "../services/workflows/find-workflow";
import { READ, workflowRef, type ToolKit } from "./tool-kit";

/** Change proposals: open one for human review, list them. */
export function registerProposalTools({ tool, ctx }: ToolKit): void {
  tool(
    "propose_change",
    {
      title: "Propose a change to a workflow",
      description:
        'Opens a change proposal for human review (nothing is published until a reviewer approves and applies it). Give exactly one of `definition` (the full new definition) or `patch` (RFC 6902 operations against the published definition), and `baseHash` (required) = get_workflow\'s published.hash so a change written against an older version is refused (stale_base); `"current"` instead takes whatever version is current, and the proposal records that you asked for it. The workflow must allow self-modification.',
      minRole: "editor",
      annotations: { readOnlyHint: false, destructiveHint: false, idempotentHint: false },
      input: {
        workflow: workflowRef,
        summary: z.string().trim().min(1).max(500).describe("One line: what changes"),
        rationale: z.string().max(20_000).optional().describe("Why; shown to the reviewer"),
        baseHash: ProposalBaseHash.describe(
          'The published hash the change was written against (get_workflow\'s published.hash), or "current"',
        ),
        definition: z.record(z.string(), z.unknown()).optional(),
        patch: z
          .array(
            z.looseObject({
              op: z.string().describe("add | remove | replace | move | copy | test"),
              path: z.string().describe("JSON Pointer, e.g. /steps/0/config/url"),
            }),
          )
          .optional(),
      },
    },
    async ({ workflow, ...rest }) => {
      const found = await findWorkflow({ ctx, input: { ref: workflow } });
      const r = await createMcpProposal({ ctx, input: { ...rest, workflowId: found.id } });
      return {
        id: r.id,
        status: r.status,
        risk: r.risk,
        workflowId: found.id,
        url: `${ctx.config.publicUrl}/workflows/${found.id}/proposals/${r.id}`,
      };
    },
  );

  tool(
    "list_proposals",
    {
      title: "List change proposals",
      description:
        "Change proposals of the workspace (or of one workflow), newest first, with status, risk and author. Page with `cursor`.",
      minRole: "viewer",
      annotations: READ,
      input: {
        workflow: workflowRef.optional(),
        status: z.array(ProposalStatus).max(10).optional().describe("Only these statuses"),
        limit: ListProposalsInput.shape.limit,
        cursor: ListProposalsInput.shape.cursor,
      },
    },
    async ({ workflow, ...rest }) => {
      const workflowId = workflow
        ? (await findWorkflow({ ctx, input: { ref: workflow } })).id
        : undefined;
      return listProposals({ ctx, input: { ...rest, workflowId } });
    },
  );

  tool(
    "get_proposal_impact",
    {
      title: "In-flight impact of applying a proposal",
      description:
        "Before a proposal is applied: the runs in flight on its base version (they keep their pinned version and finish on it) and the enabled triggers — webhooks, schedules with their next fire time, event triggers — that will start the new version from then on.",
      minRole: "viewer",
      annotations: READ,
      input: { proposalId: z.string().min(1).max(64).describe("The proposal id (prop_…)") },
    },
    (args) => getInflightImpact({ ctx, input: args }),
  );

  tool(
    "get_proposal_replay",
    {
      title: "Replay evidence and verification level of a proposal",
      description:
        "The engine's evidence for a proposal: recent real runs of the base version (and shadow runs that finished while it was open) replayed on the proposed definition with every side effect served from its recording, never executed. Per run: outcome (same_outcome, different_outcome, cannot_tell) and per step a verdict (same, different_output with a JSON diff, different_path, unverified with its reason). `verification.level` (verified, partial, unproven) and its reasons are computed by the engine; a proposer cannot set them.",
      minRole: "viewer",
      annotations: READ,
      input: { proposalId: z.string().min(1).max(64).describe("The proposal id (prop_…)") },
    },
    (args) => getProposalReplay({ ctx, input: args }),
  );
}
