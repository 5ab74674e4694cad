import { readJsonBody } from "@/server/http/api";
import { createProposal } from "@/server/services/proposals/create-proposal";
import { listProposals } from "@/server/services/proposals/list-proposals";
import { loadWorkflow } from "@/server/services/workflows/load-workflow";
import { proposalRoute } from "../../../proposals/proposal-route";

export const dynamic = "force-dynamic";

/** The workflow's proposals, newest first: `?status=pending,approved&limit=&cursor=`. */
export const GET = proposalRoute<{ id: string }>(
  { minRole: "viewer" },
  async ({ ctx, req, params }) => {
    await loadWorkflow(ctx.db, ctx.workspace!.id, params.id);
    const q = new URL(req.url).searchParams;
    const status = q
      .getAll("status")
      .flatMap((s) => s.split(","))
      .filter(Boolean);
    const limit = q.get("limit");
    return listProposals({
      ctx,
      input: {
        workflowId: params.id,
        ...(status.length ? { status } : {}),
        ...(limit ? { limit: Number(limit) } : {}),
        ...(q.get("cursor") ? { cursor: q.get("cursor") } : {}),
      },
    });
  },
);

/** Proposes a change: `{ summary, rationale?, baseHash?, definition | patch | intent }` → 201. */
export const POST = proposalRoute<{ id: string }>(
  { minRole: "editor" },
  async ({ ctx, req, params }) => {
    const body = (await readJsonBody(req)) as Record<string, unknown>;
    const r = await createProposal({ ctx, input: { ...body, workflowId: params.id } });
    return Response.json(
      { id: r.id, status: r.status, risk: r.risk },
      { status: r.created ? 201 : 200 },
    );
  },
);
