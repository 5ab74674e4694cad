import {
  ApplyProposalInput,
  CreateProposalInput,
  ListProposalsInput,
  ProposalRef,
  RetryDryRunInput,
  ReviewProposalInput,
  RollbackProposalInput,
  SetSelfModificationInput,
} from "@/lib/schemas/proposals";
import { applyProposal } from "../../services/proposals/apply-proposal";
import { countProposals } from "../../services/proposals/count-proposals";
import { createProposal } from "../../services/proposals/create-proposal";
import { getInflightImpact } from "../../services/proposals/get-inflight-impact";
import { getProposal } from "../../services/proposals/get-proposal";
import { listProposals } from "../../services/proposals/list-proposals";
import { retryDryRun } from "../../services/proposals/retry-dry-run";
import { reviewProposal } from "../../services/proposals/review-proposal";
import { rollbackProposal } from "../../services/proposals/rollback-proposal";
import { setSelfModification } from "../../services/proposals/set-self-modification";
import { roleProcedure, router } from "../init";

const viewer = roleProcedure("viewer");
const approver = roleProcedure("approver");
const editor = roleProcedure("editor");
const admin = roleProcedure("admin");

export const proposalRouter = router({
  list: viewer
    .input(ListProposalsInput.optional())
    .query(({ ctx, input }) => listProposals({ ctx: ctx.svc, input })),
  counts: viewer.query(({ ctx }) => countProposals({ ctx: ctx.svc })),
  get: viewer.input(ProposalRef).query(({ ctx, input }) => getProposal({ ctx: ctx.svc, input })),
  inflightImpact: viewer
    .input(ProposalRef)
    .query(({ ctx, input }) => getInflightImpact({ ctx: ctx.svc, input })),
  create: editor.input(CreateProposalInput).mutation(async ({ ctx, input }) => {
    const r = await createProposal({ ctx: ctx.svc, input });
    return { id: r.id, status: r.status, risk: r.risk };
  }),
  review: approver
    .input(ReviewProposalInput)
    .mutation(({ ctx, input }) => reviewProposal({ ctx: ctx.svc, input })),
  // `apply` is a reserved word for tRPC routers (with `then`, `call`). Editors reach the service,
  // which admits admins and the workflow's creator (SPEC §8).
  applyChange: editor
    .input(ApplyProposalInput)
    .mutation(({ ctx, input }) => applyProposal({ ctx: ctx.svc, input })),
  rollback: editor
    .input(RollbackProposalInput)
    .mutation(({ ctx, input }) => rollbackProposal({ ctx: ctx.svc, input })),
  setSelfModification: admin
    .input(SetSelfModificationInput)
    .mutation(({ ctx, input }) => setSelfModification({ ctx: ctx.svc, input })),
  retryDryRun: editor
    .input(RetryDryRunInput)
    .mutation(({ ctx, input }) => retryDryRun({ ctx: ctx.svc, input })),
});
