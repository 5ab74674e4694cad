import "server-only";
import { SaveRecordingInput } from "@/lib/schemas/recordings";
import { suggestReferences } from "@/lib/workflow/recording";
import { fromZodError } from "../../errors";
import { requireRole, type ServiceContext } from "../context";
import { saveDraft } from "../workflows/save-draft";
import { updateWorkflow } from "../workflows/update-workflow";
import { loadRecording, recordingDefinition } from "./load-recording";

/**
 * Turns a recording into its workflow's draft: the recorded steps in order with their configs
 * as written (references intact), the inputs it started with and its output. Nothing is
 * published — a person reviews the draft in the editor. `suggestions` lists literal values equal
 * to an earlier step's output (or an input), which the person may turn into references.
 */
export async function saveRecordingAsWorkflow({
  ctx,
  input,
}: {
  ctx: ServiceContext;
  input: unknown;
}) {
  const ws = requireRole(ctx, "editor");
  const parsed = SaveRecordingInput.safeParse(input);
  if (!parsed.success) throw fromZodError(parsed.error, "Recording");
  const rec = await loadRecording(ctx.db, ws.id, parsed.data.recordingId);
  const workflowId = rec.run.workflowId;
  const name = parsed.data.name ?? rec.name;
  const definition = recordingDefinition(rec, name);
  if (parsed.data.name) await updateWorkflow({ ctx, input: { workflowId, name } });
  const saved = await saveDraft({ ctx, input: { workflowId, definition } });
  return {
    workflowId,
    revision: saved.revision,
    ok: !saved.issues.some((i) => i.severity === "error"),
    issues: saved.issues,
    definition,
    suggestions: suggestReferences({
      steps: rec.steps,
      outputs: Object.fromEntries(Object.entries(rec.outputs).map(([id, o]) => [id, o?.data])),
      input: rec.run.input,
    }),
    url: `${ctx.config.publicUrl}/workflows/${workflowId}/edit`,
  };
}
