import { endpoint, routeMethods } from "@/server/http/endpoint";
import { createProposalOp, listWorkflowProposalsOp } from "@/server/http/operations/proposals";
import { createProposal } from "@/server/services/proposals/create-proposal";
import { listProposals } from "@/server/services/proposals/list-proposals";
import { loadWorkflow } from "@/server/services/workflows/load-workflow";

export const dynamic = "force-dynamic";

export const { GET, POST, PUT, PATCH, DELETE, HEAD, OPTIONS } = routeMethods({
  /** The workflow's proposals, newest first: `?status=pending,approved&limit=&cursor=`. */
  GET: endpoint(listWorkflowProposalsOp, async ({ ctx, params, query }) => {
    await loadWorkflow(ctx.db, ctx.workspace!.id, params.id);
    return listProposals({ ctx, input: { ...query, workflowId: params.id } });
  }),
  /** Proposes a change: `{ summary, rationale?, baseHash, definition | patch | intent }` → 201. */
  POST: endpoint(createProposalOp, async ({ ctx, params, body }) => {
    const r = await createProposal({ ctx, input: { ...body, workflowId: params.id } });
    return Response.json(
      { id: r.id, status: r.status, risk: r.risk },
      { status: r.created ? 201 : 200 },
    );
  }),
});
