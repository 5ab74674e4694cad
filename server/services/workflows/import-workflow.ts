import "server-only";
import { eq } from "drizzle-orm";
import { workflows } from "@/db/schema";
import { ImportWorkflowInput } from "@/lib/schemas/workflows";
import { describePath, unstorableText } from "@/lib/storable-text";
import { parseDefinitionText } from "@/lib/workflow";
import { clip } from "@/lib/workflow/json";
import { ValidationError, fromZodError } from "../../errors";
import { requireRole, requireUserId, type ServiceContext } from "../context";
import { createWorkflowFromDefinition } from "./create-workflow";
import { compileDefinition } from "./definition-policy";
import { loadWorkflow } from "./load-workflow";
import { recordVersion } from "./record-version";

/**
 * Imports a JSON or YAML definition, as a new workflow or as a new version of an existing one
 * (source `import`). Parse errors name the line and column; validation errors list every issue.
 */
export async function importWorkflow({ ctx, input }: { ctx: ServiceContext; input: unknown }) {
  const ws = requireRole(ctx, "editor");
  const parsed = ImportWorkflowInput.safeParse(input);
  if (!parsed.success) throw fromZodError(parsed.error, "Import");
  const { content, format, workflowId, notes } = parsed.data;
  const text = parseDefinitionText(content, format);
  if (!text.ok)
    throw new ValidationError(`Could not read the file: ${text.error.message}`, [
      { path: [], message: text.error.message, line: text.error.line, column: text.error.column },
    ]);
  // The door checks saw only the file's text; an escape in it (JSON "\u0000", YAML "\0") becomes
  // a NUL only now, and would reach the text and jsonb columns as a driver error (a 500).
  const unstorable = unstorableText(text.value);
  if (unstorable)
    throw new ValidationError(
      `Import is invalid at ${clip(describePath(unstorable.path))}: ${unstorable.message}`,
      [{ path: unstorable.path, message: unstorable.message }],
    );
  const definition = text.value as Record<string, unknown>;
  const compiled = await compileDefinition(ctx.db, ws.id, definition, "The imported definition");

  if (!workflowId) {
    return createWorkflowFromDefinition(ctx, ws.id, {
      name: compiled.definition.name,
      description: compiled.definition.description ?? "",
      tags: [],
      definition,
      source: "import",
      notes: notes || "Imported",
      layout: (definition.layout as Record<string, unknown> | undefined) ?? undefined,
    });
  }
  return ctx.db.transaction(async (tx) => {
    const wf = await loadWorkflow(tx, ws.id, workflowId, { forUpdate: true });
    const result = await recordVersion(tx, ctx, wf, {
      definition: compiled.normalized,
      hash: compiled.hash,
      source: "import",
      notes: notes || "Imported",
    });
    await tx
      .update(workflows)
      .set({
        draft: definition,
        draftHash: compiled.hash,
        draftRevision: wf.draftRevision + 1,
        draftUpdatedAt: ctx.now(),
        draftUpdatedBy: requireUserId(ctx),
      })
      .where(eq(workflows.id, wf.id));
    return {
      id: wf.id,
      slug: wf.slug,
      name: wf.name,
      version: result.version.version,
      status: result.status,
    };
  });
}
