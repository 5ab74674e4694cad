import "server-only";
import { apiTriggerPayload, StartInlineRunInput } from "@/lib/schemas/runs";
import { fromZodError } from "../../errors";
import { requireRole, requireUserId, type ServiceContext } from "../context";
import { recordAudit } from "../audit/record-audit";
import { compileDefinition } from "../workflows/definition-policy";
import { createRun } from "./create-run";
import { storeDefinitionContent } from "../workflows/definition-content";

/**
 * Runs an unsaved definition (SPEC issue #15: inline runs): validated with the same workspace
 * policy as publish (refusing with every issue, storing nothing), snapshotted content-addressed
 * like a version, and queued through createRun with no workflow — same engine, admission and
 * quotas. Editor, like starting a run: the definition is arbitrary code either way.
 */
export async function startInlineRun({ ctx, input }: { ctx: ServiceContext; input: unknown }) {
  const ws = requireRole(ctx, "editor");
  const parsed = StartInlineRunInput.safeParse(input);
  if (!parsed.success) throw fromZodError(parsed.error, "Run");
  const userId = requireUserId(ctx);
  const viaToken = ctx.actor.type === "token";
  const result = await ctx.db.transaction(async (tx) => {
    const compiled = await compileDefinition(tx, ws.id, parsed.data.definition, "The definition", {
      inline: true,
    });
    await storeDefinitionContent(tx, {
      workspaceId: ws.id,
      hash: compiled.hash,
      definition: compiled.normalized,
      createdAt: ctx.now(),
    });
    const r = await createRun(tx, ctx, {
      workspaceId: ws.id,
      workflowId: null,
      inlineHash: compiled.hash,
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
      idempotencyKey: parsed.data.idempotencyKey ?? null,
      strictIdempotency: true,
      limits: parsed.data.limits,
    });
    if (!r.deduplicated)
      await recordAudit(tx, ctx, {
        action: "run.start_inline",
        targetType: "run",
        targetId: r.run.id,
        data: { hash: compiled.hash, ...(r.run.limits ? { limits: r.run.limits } : {}) },
      });
    return { ...r, hash: compiled.hash, warnings: compiled.warnings };
  });
  return {
    runId: result.run.id,
    status: result.run.status,
    deduplicated: result.deduplicated,
    reason: result.reason,
    hash: result.hash,
    warnings: result.warnings,
  };
}
