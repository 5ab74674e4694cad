import { readJsonBody } from "@/server/http/api";
import { applyProposal } from "@/server/services/proposals/apply-proposal";
import { routeMethods, type RouteHandler } from "@/server/http/endpoint";
import { proposalRoute } from "../../proposal-route";

export const dynamic = "force-dynamic";

/** `{ bump?: "patch" | "minor" | "major" }` → `{ versionId, version }`. */
const handler = proposalRoute<{ id: string }>(
  { minRole: "editor" },
  async ({ ctx, req, params }) => {
    const body = (await readJsonBody(req)) as Record<string, unknown>;
    return applyProposal({ ctx, input: { ...body, proposalId: params.id } });
  },
);

// Every other method answers a JSON 405 with Allow (not Next's empty 405).
export const { GET, POST, PUT, PATCH, DELETE, HEAD, OPTIONS } = routeMethods({
  POST: handler as RouteHandler,
});
