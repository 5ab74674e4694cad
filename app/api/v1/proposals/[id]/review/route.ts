import { readJsonBody } from "@/server/http/api";
import { reviewProposal } from "@/server/services/proposals/review-proposal";
import { proposalRoute } from "../../proposal-route";

export const dynamic = "force-dynamic";

/** `{ decision: "approve" | "reject", notes?, shownHash? }` → `{ status }`. */
export const POST = proposalRoute<{ id: string }>(
  { minRole: "approver" },
  async ({ ctx, req, params }) => {
    const body = (await readJsonBody(req)) as Record<string, unknown>;
    return reviewProposal({ ctx, input: { ...body, proposalId: params.id } });
  },
);
