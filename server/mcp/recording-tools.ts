import "server-only";
import {
  FinishRecordingInput,
  RecordStepInput,
  SaveRecordingInput,
  StartRecordingInput,
} from "@/lib/schemas/recordings";
import { finishRecording } from "../services/recordings/finish-recording";
import { recordStep } from "../services/recordings/record-step";
import { saveRecordingAsWorkflow } from "../services/recordings/save-recording-as-workflow";
import { startRecording } from "../services/recordings/start-recording";
import type { ToolKit } from "./tool-kit";

/** Recording mode: the agent calls step types one by one; the calls become a draft workflow. */
export function registerRecordingTools({ tool, ctx }: ToolKit): void {
  tool(
    "start_recording",
    {
      title: "Start recording a workflow",
      description:
        "Starts a recording: a new workflow named `name` (a draft for a person to review) and a run of it (trigger recording) that you drive with record_step. Each key of `input` becomes a workflow input ({{ input.<key> }}). Answers { recordingId, runId, workflowId }.",
      minRole: "editor",
      annotations: { readOnlyHint: false, destructiveHint: false, idempotentHint: false },
      input: StartRecordingInput.shape,
    },
    (args) => startRecording({ ctx, input: args }),
  );

  tool(
    "record_step",
    {
      title: "Call and record a step",
      description:
        'Calls one step of a recording and records it: `type` http | code | llm | notify | tool (a tool of an MCP server configured in the workspace: config { server, tool, arguments }), `config` as in a workflow definition. Reference earlier steps with `{{ steps.<id>.output.data.<path> }}` or the shorthand "@<id>.<path>" as a whole string value; they are resolved for this call and kept as references in the recording. With `preset` the step is recorded with that output data and not executed. Answers { ok, stepId, output: { type, data, meta } } or { ok: false, error }; a failed call is not kept and may be repeated with the same id.',
      minRole: "editor",
      annotations: { readOnlyHint: false, destructiveHint: false, openWorldHint: true },
      input: RecordStepInput.shape,
    },
    (args) => recordStep({ ctx, input: args }),
  );

  tool(
    "finish_recording",
    {
      title: "Finish a recording",
      description:
        "Completes the recording's run, with `output` (templates allowed, e.g. {{ steps.<id>.output.data }}) as its output and the workflow's.",
      minRole: "editor",
      annotations: { readOnlyHint: false, destructiveHint: false, idempotentHint: false },
      input: FinishRecordingInput.shape,
    },
    (args) => finishRecording({ ctx, input: args }),
  );

  tool(
    "save_as_workflow",
    {
      title: "Save a recording as a workflow draft",
      description:
        "Writes the recorded steps (in order, references intact) as the draft of the recording's workflow; nothing is published. Answers { workflowId, ok, issues, definition, suggestions, url }: suggestions are literal values equal to an earlier step's output, as { stepId, path, reference }, for a person to confirm in the editor.",
      minRole: "editor",
      annotations: { readOnlyHint: false, destructiveHint: false, idempotentHint: true },
      input: SaveRecordingInput.shape,
    },
    (args) => saveRecordingAsWorkflow({ ctx, input: args }),
  );
}
