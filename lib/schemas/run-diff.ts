import { z } from "zod";

const id = z.string().min(1).max(64);

/**
 * Compare two runs: `runId` (B, "this run") against `withRunId` (A, the baseline). Without
 * `withRunId`, A is the previous run of the same workflow. Changes read from A to B.
 */
export const DiffRunsInput = z.object({
  runId: id,
  withRunId: id.optional(),
});
export type DiffRunsInput = z.infer<typeof DiffRunsInput>;
