import { apiRoute, readJsonBody } from "@/server/http/api";
import { ValidationError } from "@/server/errors";
import { decideApproval } from "@/server/services/approvals/decide-approval";
import { parseResumeToken } from "@/server/services/approvals/resume-token";
import { loadRun } from "@/server/services/runs/load-run";

export const dynamic = "force-dynamic";

/** Decides the gate a resume token names: `{ approve, resumeToken, reason }`. */
export const POST = apiRoute<{ id: string }>(
  { minRole: "approver" },
  async ({ ctx, req, params }) => {
    const body = (await readJsonBody(req)) as {
      approve?: unknown;
      resumeToken?: unknown;
      reason?: unknown;
    };
    if (typeof body.resumeToken !== "string")
      throw new ValidationError("resumeToken is required", [
        { path: ["resumeToken"], message: "Required" },
      ]);
    if (typeof body.approve !== "boolean")
      throw new ValidationError("approve must be true or false", [
        { path: ["approve"], message: "Expected a boolean" },
      ]);
    await loadRun(ctx.db, ctx.workspace!.id, params.id);
    const token = parseResumeToken(body.resumeToken);
    if (!token)
      throw new ValidationError("resumeToken is malformed", [
        { path: ["resumeToken"], message: "Expected wrf_rt_…" },
      ]);
    return decideApproval({
      ctx,
      input: {
        approvalId: token.approvalId,
        runId: params.id,
        approve: body.approve,
        resumeToken: body.resumeToken,
        reason: typeof body.reason === "string" ? body.reason : "",
      },
      via: "api",
    });
  },
);
