import { z } from "zod";
import { SIDE_EFFECT_CHOICES, TEST_MODES } from "@/lib/workflow/test-run";

const id = z.string().min(1).max(64);

/** "Test this step" / "Test up to here" (docs/runs.md "Testing while building"). */
export const TestStepInput = z.object({
  workflowId: id,
  stepId: z.string().min(1).max(64),
  /** `step` (default): ancestors reuse the last run's outputs where it has them; `up_to`: all run. */
  mode: z.enum(TEST_MODES).default("step"),
  /** The draft to test (the editor's unsaved state); default: the workflow's saved draft. */
  definition: z.record(z.string(), z.unknown()).optional(),
  /** The run input; default: the last real run's input (else `{}`). */
  input: z.record(z.string(), z.unknown()).optional(),
  /** Per side-effecting step: `execute` it for real, or `use_last` (its last real run's output). */
  sideEffects: z.record(z.string(), z.enum(SIDE_EFFECT_CHOICES)).default({}),
});
export type TestStepInput = z.input<typeof TestStepInput>;

/** What a test of `stepId` would do, for the dialog (same fields, nothing started). */
export const PreviewTestStepInput = TestStepInput.omit({ input: true });
export type PreviewTestStepInput = z.input<typeof PreviewTestStepInput>;
