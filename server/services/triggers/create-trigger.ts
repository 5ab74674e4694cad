import "server-only";
import { randomBytes } from "node:crypto";
import { triggers } from "@/db/schema";
import { isUniqueViolation } from "@/db/errors";
import { newId } from "@/lib/ids";
import { CreateTriggerInput } from "@/lib/schemas/triggers";
import { ConflictError, fromZodError } from "../../errors";
import { recordAudit } from "../audit/record-audit";
import { requireRole, type ServiceContext } from "../context";
import { actingUserId } from "../secrets/acting-user";
import { loadWorkflow } from "../workflows/load-workflow";
import { parseTriggerConfigForSave, publicTrigger } from "./load-trigger";
import { generateWebhookSecret, sealWebhookSecret } from "./trigger-secret";

/**
 * Creates a trigger on a workflow of the workspace. A webhook gets a unique path and a new signing
 * secret, returned here once (only its ciphertext is stored).
 */
export async function createTrigger({ ctx, input }: { ctx: ServiceContext; input: unknown }) {
  const ws = requireRole(ctx, "editor");
  const parsed = CreateTriggerInput.safeParse(input);
  if (!parsed.success) throw fromZodError(parsed.error, "Trigger");
  const data = parsed.data;
  const config = await parseTriggerConfigForSave(
    ctx.db,
    ctx,
    ws.id,
    data.workflowId,
    data.kind,
    data.config,
  );
  const id = newId("trg");
  const now = ctx.now();
  const secret = data.kind === "webhook" ? generateWebhookSecret() : null;
  const path =
    data.kind === "webhook" ? (data.path ?? `wh-${randomBytes(12).toString("hex")}`) : null;
  try {
    const row = await ctx.db.transaction(async (tx) => {
      await loadWorkflow(tx, ws.id, data.workflowId);
      const [created] = await tx
        .insert(triggers)
        .values({
          id,
          workspaceId: ws.id,
          workflowId: data.workflowId,
          kind: data.kind,
          name: data.name,
          enabled: data.enabled,
          config,
          path,
          secret: secret ? sealWebhookSecret(ctx.keys, ws.id, id, secret) : null,
          eventName: data.kind === "event" ? String(config.event) : null,
          createdAt: now,
          createdBy: actingUserId(ctx),
          updatedAt: now,
        })
        .returning();
      await recordAudit(tx, ctx, {
        action: "trigger.created",
        targetType: "trigger",
        targetId: id,
        data: { kind: data.kind, name: data.name, workflowId: data.workflowId, path },
      });
      return created!;
    });
    return { trigger: publicTrigger(row, ctx.config.publicUrl), secret };
  } catch (e) {
    if (isUniqueViolation(e, "triggers_path_key"))
      throw new ConflictError(`The webhook path "${path}" is taken; choose another`);
    throw e;
  }
}
