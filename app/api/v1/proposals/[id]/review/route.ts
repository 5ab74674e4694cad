import { readJsonBody } from "@/server/http/api";
import { reviewProposal } from "@/server/services/proposals/review-proposal";
import { routeMethods, type RouteHandler } from "@/server/http/endpoint";
import { proposalRoute } from "../../proposal-route";

export const dynamic = "force-dynamic";

/** `{ decision: "approve" | "reject", notes?, shownHash? }` → `{ status }`. */
const handler = proposalRoute<{ id: string }>(
  { minRole: "approver" },
  async ({ ctx, req, params }) => {
    const body = (await readJsonBody(req)) as Record<string, unknown>;
    return reviewProposal({ ctx, input: { ...body, proposalId: params.id } });
  },
);

// Every other method answers a JSON 405 with Allow (not Next's empty 405).
export const { GET, POST, PUT, PATCH, DELETE, HEAD, OPTIONS } = routeMethods({
  POST: handler as RouteHandler,
});
