import { z } from "zod";
import { RECORDABLE_STEP_TYPES } from "@/lib/workflow/recording";
import { WorkflowName } from "./workflows";

const recordingId = z.string().min(1).max(64).describe("The recording's id (its run id, run_…)");

export const StartRecordingInput = z.object({
  name: WorkflowName.describe("The workflow the recording belongs to (created now as a draft)"),
  input: z
    .record(z.string(), z.unknown())
    .default({})
    .describe("The run's input; each key becomes an input of the workflow, defaulting to it"),
});
export type StartRecordingInput = z.infer<typeof StartRecordingInput>;

export const RecordStepInput = z.object({
  recordingId,
  type: z.enum(RECORDABLE_STEP_TYPES).describe("The step type to call"),
  id: z
    .string()
    .max(64)
    .optional()
    .describe("The step id later calls reference (@<id>.field); default: the type, numbered"),
  config: z
    .record(z.string(), z.unknown())
    .describe(
      "The step's config, as in a workflow definition; `{{ steps.<id>.output.data… }}` and `@<id>.<path>` reference earlier steps",
    ),
  preset: z
    .unknown()
    .optional()
    .describe("A result to record as the step's output data without executing the step"),
});
export type RecordStepInput = z.infer<typeof RecordStepInput>;

export const FinishRecordingInput = z.object({
  recordingId,
  output: z.unknown().optional().describe("The run's output (templates allowed, as `output`)"),
});
export type FinishRecordingInput = z.infer<typeof FinishRecordingInput>;

export const SaveRecordingInput = z.object({
  recordingId,
  name: WorkflowName.optional().describe("The workflow's name in the draft (default: as started)"),
});
export type SaveRecordingInput = z.infer<typeof SaveRecordingInput>;

/** The editor's question: which references does this workflow's latest recording suggest? */
export const ListReferenceSuggestionsInput = z.strictObject({
  workflowId: z.string().min(1).max(64),
});
export type ListReferenceSuggestionsInput = z.infer<typeof ListReferenceSuggestionsInput>;
