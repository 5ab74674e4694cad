import "server-only";
import { FinishRecordingInput } from "@/lib/schemas/recordings";
import { resolveTemplate, TemplateResolutionError } from "@/lib/workflow";
import { PreconditionFailedError, ValidationError, fromZodError } from "../../errors";
import { requireRole, type ServiceContext } from "../context";
import { finishRun } from "../run-state/finish-run";
import { appendRunEvents } from "../runs/run-events";
import { loadRecording, RECORDING_OUTPUT_EVENT, recordingContext } from "./load-recording";

/**
 * Ends a recording: its run completes (compare-and-set, like any run's end) with `output`
 * resolved against the recorded steps; the output as written is kept for save_as_workflow.
 */
export async function finishRecording({ ctx, input }: { ctx: ServiceContext; input: unknown }) {
  const ws = requireRole(ctx, "editor");
  const parsed = FinishRecordingInput.safeParse(input);
  if (!parsed.success) throw fromZodError(parsed.error, "Recording");
  const rec = await loadRecording(ctx.db, ws.id, parsed.data.recordingId);
  const written = parsed.data.output;
  let output: unknown = null;
  try {
    output =
      written === undefined
        ? null
        : (resolveTemplate(written, recordingContext(rec), { strict: true }) ?? null);
  } catch (e) {
    if (!(e instanceof TemplateResolutionError)) throw e;
    throw new ValidationError(e.message, [{ path: ["output"], message: e.message }]);
  }
  const done = await finishRun(
    ctx.db,
    ctx.config,
    { runId: rec.run.id, status: "completed", output, reason: "recording_finished" },
    ctx.now(),
  );
  if (!done.changed)
    throw new PreconditionFailedError(`Recording ${rec.run.id} already ended (${done.status})`);
  if (written !== undefined)
    await appendRunEvents(
      ctx.db,
      [
        {
          runId: rec.run.id,
          workspaceId: ws.id,
          type: RECORDING_OUTPUT_EVENT,
          data: { output: written },
        },
      ],
      ctx.now(),
    );
  return {
    recordingId: rec.run.id,
    status: "completed" as const,
    output,
    steps: rec.steps.map((s) => s.id),
  };
}
