import "server-only";
import { apiTriggerPayload, StartRunInput } from "@/lib/schemas/runs";
import { fromZodError } from "../../errors";
import { requireRole, requireUserId, type ServiceContext } from "../context";
import { recordAudit } from "../audit/record-audit";
import { createRun } from "./create-run";

/**
 * Starts a run by hand (UI form) or through the API. Repeating the same `idempotencyKey` with the
 * same request returns the existing run, also under concurrent requests; with a different input
 * or version it is refused (422 `idempotency_key_reused`, naming the run), as Stripe does.
 */
export async function startRun({ ctx, input }: { ctx: ServiceContext; input: unknown }) {
  const ws = requireRole(ctx, "editor");
  const parsed = StartRunInput.safeParse(input);
  if (!parsed.success) throw fromZodError(parsed.error, "Run");
  const userId = requireUserId(ctx);
  const viaToken = ctx.actor.type === "token";
  const result = await ctx.db.transaction(async (tx) => {
    const r = await createRun(tx, ctx, {
      workspaceId: ws.id,
      workflowId: parsed.data.workflowId,
      versionId: parsed.data.versionId,
      input: parsed.data.input,
      trigger: {
        type: viaToken ? "api" : "manual",
        payload: apiTriggerPayload(parsed.data.input, parsed.data.trigger),
      },
      initiator:
        viaToken && ctx.actor.type === "token"
          ? { type: "token", id: ctx.actor.tokenId }
          : { type: "user", id: userId },
      accountableUserId: userId,
      ...(parsed.data.repository ? { repositoryOverride: parsed.data.repository } : {}),
      idempotencyKey: parsed.data.idempotencyKey ?? null,
      strictIdempotency: true,
      limits: parsed.data.limits,
    });
    if (!r.deduplicated) {
      await recordAudit(tx, ctx, {
        action: "run.started",
        targetType: "run",
        targetId: r.run.id,
        data: {
          workflowId: r.run.workflowId,
          version: r.run.version,
          ...(r.run.limits ? { limits: r.run.limits } : {}),
        },
      });
    }
    return r;
  });
  return {
    runId: result.run.id,
    status: result.run.status,
    deduplicated: result.deduplicated,
    reason: result.reason,
  };
}
