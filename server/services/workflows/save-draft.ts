import "server-only";
import { eq, sql } from "drizzle-orm";
import { workflows } from "@/db/schema";
import { MAX_DEFINITION_BYTES, SaveDraftInput } from "@/lib/schemas/workflows";
import { deepEqual, hashDefinition, validateDefinition } from "@/lib/workflow";
import { ConflictError, PayloadTooLargeError, fromZodError } from "../../errors";
import { requireRole, requireUserId, type ServiceContext } from "../context";
import { workspaceValidateOptions } from "./definition-policy";
import { loadWorkflow } from "./load-workflow";

/**
 * Saves the draft (any JSON, autosave-safe): no validation is required to save, but the issues are
 * returned so the editor can show them. Optimistic concurrency: pass the revision you edited; a
 * save over someone else's newer save is refused with the current draft. An identical save is a
 * no-op (no revision bump), so autosave loops do not churn.
 */
export async function saveDraft({ ctx, input }: { ctx: ServiceContext; input: unknown }) {
  const ws = requireRole(ctx, "editor");
  const parsed = SaveDraftInput.safeParse(input);
  if (!parsed.success) throw fromZodError(parsed.error, "Draft");
  const { workflowId, definition, baseRevision } = parsed.data;
  const json = JSON.stringify(definition ?? null);
  if (json.length > MAX_DEFINITION_BYTES)
    throw new PayloadTooLargeError(`The draft is larger than ${MAX_DEFINITION_BYTES} bytes`);
  const validation = validateDefinition(definition, await workspaceValidateOptions(ctx.db, ws.id));
  const draftHash =
    validation.ok && validation.definition ? hashDefinition(validation.definition) : null;

  return ctx.db.transaction(async (tx) => {
    const wf = await loadWorkflow(tx, ws.id, workflowId, { forUpdate: true });
    // jsonb does not keep key order: compare structurally.
    if (deepEqual(wf.draft, definition ?? null)) {
      return {
        revision: wf.draftRevision,
        savedAt: wf.draftUpdatedAt,
        issues: validation.issues,
        changed: false,
      };
    }
    if (baseRevision !== undefined && baseRevision !== wf.draftRevision) {
      throw new ConflictError(
        `The draft was changed by someone else (revision ${wf.draftRevision}, you edited ${baseRevision}). Reload to see their changes.`,
        { currentRevision: wf.draftRevision },
      );
    }
    const [row] = await tx
      .update(workflows)
      .set({
        // A JSON null is a draft like any other; a bare null would be SQL NULL (not-null column).
        draft: definition === undefined || definition === null ? sql`'null'::jsonb` : definition,
        draftHash,
        draftRevision: wf.draftRevision + 1,
        draftUpdatedAt: ctx.now(),
        draftUpdatedBy: requireUserId(ctx),
        updatedAt: ctx.now(),
      })
      .where(eq(workflows.id, wf.id))
      .returning({ revision: workflows.draftRevision, savedAt: workflows.draftUpdatedAt });
    return { ...row!, issues: validation.issues, changed: true };
  });
}
