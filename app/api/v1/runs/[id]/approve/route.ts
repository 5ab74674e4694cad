import { endpoint, routeMethods } from "@/server/http/endpoint";
import { approveRunOp } from "@/server/http/operations/runs";
import { ValidationError } from "@/server/errors";
import { decideApproval } from "@/server/services/approvals/decide-approval";
import { parseResumeToken } from "@/server/services/approvals/resume-token";
import { loadRun } from "@/server/services/runs/load-run";

export const dynamic = "force-dynamic";

export const { GET, POST, PUT, PATCH, DELETE, HEAD, OPTIONS } = routeMethods({
  /** Decides the gate a resume token names: `{ approve, resumeToken, reason, form }`. */
  POST: endpoint(approveRunOp, async ({ ctx, params, body }) => {
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
        reason: body.reason ?? "",
        ...(body.form ? { form: body.form } : {}),
      },
      via: "api",
    });
  }),
});
