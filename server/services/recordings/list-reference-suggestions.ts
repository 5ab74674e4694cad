import "server-only";
import { and, desc, eq } from "drizzle-orm";
import { runs } from "@/db/schema";
import { ListReferenceSuggestionsInput } from "@/lib/schemas/recordings";
import { suggestReferences, type ReferenceSuggestion } from "@/lib/workflow/recording";
import { fromZodError } from "../../errors";
import { requireRole, type ServiceContext } from "../context";
import { loadWorkflow } from "../workflows/load-workflow";
import { loadRecording } from "./load-recording";

/**
 * The post-hoc references of a workflow's latest recording (MCP recording mode), for the editor
 * to offer: literal values in recorded configs equal to an earlier step's output or an input.
 * Empty when the workflow was never recorded. The editor filters them against the live draft.
 */
export async function listReferenceSuggestions({
  ctx,
  input,
}: {
  ctx: ServiceContext;
  input: unknown;
}): Promise<{ recordingId: string | null; suggestions: ReferenceSuggestion[] }> {
  const ws = requireRole(ctx, "viewer");
  const parsed = ListReferenceSuggestionsInput.safeParse(input);
  if (!parsed.success) throw fromZodError(parsed.error, "Suggestions");
  const wf = await loadWorkflow(ctx.db, ws.id, parsed.data.workflowId);
  const [latest] = await ctx.db
    .select({ id: runs.id })
    .from(runs)
    .where(
      and(
        eq(runs.workspaceId, ws.id),
        eq(runs.workflowId, wf.id),
        eq(runs.triggerType, "recording"),
      ),
    )
    .orderBy(desc(runs.createdAt))
    .limit(1);
  if (!latest) return { recordingId: null, suggestions: [] };
  const rec = await loadRecording(ctx.db, ws.id, latest.id);
  return {
    recordingId: latest.id,
    suggestions: suggestReferences({
      steps: rec.steps,
      outputs: Object.fromEntries(Object.entries(rec.outputs).map(([id, o]) => [id, o?.data])),
      input: rec.run.input,
    }),
  };
}
