import { getProposal } from "@/server/services/proposals/get-proposal";
import { routeMethods, type RouteHandler } from "@/server/http/endpoint";
import { proposalRoute } from "../proposal-route";

export const dynamic = "force-dynamic";

/** One proposal with base/proposed/current definitions, diff, risk, verdicts, dry run, reviews. */
const handler = proposalRoute<{ id: string }>({ minRole: "viewer" }, ({ ctx, params }) =>
  getProposal({ ctx, input: { proposalId: params.id } }),
);

// Every other method answers a JSON 405 with Allow (not Next's empty 405).
export const { GET, POST, PUT, PATCH, DELETE, HEAD, OPTIONS } = routeMethods({
  GET: handler as RouteHandler,
});
