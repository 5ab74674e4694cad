import "server-only";
import { and, asc, eq, inArray } from "drizzle-orm";
import type { Queryable } from "@/db/client";
import { runEvents, runSteps } from "@/db/schema";
import type { TemplateContext } from "@/lib/workflow";
import { recordedDefinition, type RecordedStep } from "@/lib/workflow/recording";
import { NotFoundError } from "../../errors";
import { loadRun, type RunRow } from "../runs/load-run";

/** The run event that keeps a recorded step's config as the agent wrote it (references intact). */
export const STEP_RECORDED_EVENT = "step.recorded";
/** The run event that keeps the output finish_recording was given, as written. */
export const RECORDING_OUTPUT_EVENT = "recording.output";

export interface Recording {
  run: RunRow;
  /** The workflow name the recording was started with. */
  name: string;
  /** Steps recorded successfully, in order, with their configs as written. */
  steps: RecordedStep[];
  /** Each recorded step's output envelope `{ type, data, meta }`, by step id. */
  outputs: Record<string, { type: string; data: unknown; meta: unknown }>;
  /** Attempts per step id so far (failed calls included): the next call of an id is one more. */
  attempts: Map<string, number>;
  /** The run output as finish_recording was given it (templates intact); undefined: none. */
  output?: unknown;
}

/**
 * A recording of the workspace: its run (trigger `recording`), the steps it kept and their
 * outputs. Failed calls leave a failed attempt in the run but no step in the recording, so the
 * agent can call again with a corrected config under the same id. NotFound for other runs.
 */
export async function loadRecording(
  db: Queryable,
  workspaceId: string,
  recordingId: string,
  opts: { forUpdate?: boolean } = {},
): Promise<Recording> {
  const run = await loadRun(db, workspaceId, recordingId, opts);
  if (run.triggerType !== "recording") throw new NotFoundError("Recording", recordingId);
  const events = await db
    .select({ type: runEvents.type, data: runEvents.data })
    .from(runEvents)
    .where(
      and(
        eq(runEvents.runId, run.id),
        inArray(runEvents.type, [STEP_RECORDED_EVENT, RECORDING_OUTPUT_EVENT]),
      ),
    )
    .orderBy(asc(runEvents.id));
  const rows = await db
    .select({
      path: runSteps.path,
      attempt: runSteps.attempt,
      status: runSteps.status,
      output: runSteps.output,
    })
    .from(runSteps)
    .where(eq(runSteps.runId, run.id));
  const attempts = new Map<string, number>();
  const outputs: Recording["outputs"] = {};
  for (const r of rows) {
    attempts.set(r.path, Math.max(attempts.get(r.path) ?? 0, r.attempt));
    if (r.status === "completed") outputs[r.path] = r.output as Recording["outputs"][string];
  }
  const payload = (run.triggerPayload ?? {}) as { name?: string };
  return {
    run,
    name: payload.name ?? "Recorded workflow",
    steps: events
      .filter((e) => e.type === STEP_RECORDED_EVENT)
      .map((e) => e.data as unknown as RecordedStep),
    outputs,
    attempts,
    output: events.find((e) => e.type === RECORDING_OUTPUT_EVENT)?.data.output,
  };
}

/** What a recorded config's templates see: the run input and the recorded steps' outputs. */
export function recordingContext(rec: Recording): TemplateContext {
  return {
    input: rec.run.input,
    steps: Object.fromEntries(
      Object.entries(rec.outputs).map(([id, output]) => [id, { output, status: "completed" }]),
    ),
    // A recording always has its workflow (created by start_recording).
    run: { id: rec.run.id, workflowId: rec.run.workflowId ?? undefined },
  };
}

/**
 * The workflow a recording has recorded so far: what its run shows as its definition (the
 * pinned version is a placeholder) and what save_as_workflow writes as the draft.
 */
export function recordingDefinition(rec: Recording, name = rec.name): Record<string, unknown> {
  return recordedDefinition({ name, input: rec.run.input, steps: rec.steps, output: rec.output });
}
