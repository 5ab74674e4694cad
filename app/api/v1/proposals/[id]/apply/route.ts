import { readJsonBody } from "@/server/http/api";
import { applyProposal } from "@/server/services/proposals/apply-proposal";
import { proposalRoute } from "../../proposal-route";

export const dynamic = "force-dynamic";

/** `{ bump?: "patch" | "minor" | "major" }` → `{ versionId, version }`. */
export const POST = proposalRoute<{ id: string }>(
  { minRole: "editor" },
  async ({ ctx, req, params }) => {
    const body = (await readJsonBody(req)) as Record<string, unknown>;
    return applyProposal({ ctx, input: { ...body, proposalId: params.id } });
  },
);
