import "server-only";
import { z } from "zod";
import { RerunInput } from "@/lib/schemas/runs";
import { diffRuns } from "../services/runs/diff-runs";
import { previewRerun } from "../services/runs/preview-rerun";
import { READ, runId, type ToolKit } from "./tool-kit";

/** Reading runs side by side: a step-by-step diff, and what a rerun would repeat. */
export function registerRunCompareTools({ tool, ctx }: ToolKit): void {
  tool(
    "diff_runs",
    {
      title: "Compare two runs step by step",
      description:
        "Compares run `runId` (B) with `withRunId` (A; default: the previous run of the same workflow), of any versions. Answers per step (loop iterations by path) a verdict same | different | only_a | only_b with status, attempts, duration, branch port and capped JSON diffs of input and result; `summary` lists steps only in A / only in B, changed branches, loop iteration counts and `pathsDiffer`.",
      minRole: "viewer",
      annotations: READ,
      input: {
        runId,
        withRunId: z
          .string()
          .min(1)
          .max(64)
          .optional()
          .describe("The run to compare with (A); default: the previous run of the workflow"),
      },
    },
    (args) => diffRuns({ ctx, input: args }),
  );

  tool(
    "preview_rerun",
    {
      title: "Preview a rerun (dry run)",
      description:
        "What rerunning a run would do, without starting anything: the steps that run again and, for each side-effecting one, the idempotency key it would send (`<new run id>` stands for the rerun's id), how (`sentAs`), the original run's key (`originalKey`) and whether the receiver sees the same key again (`repeatsOriginal`). Show this list to the person before rerunning.",
      minRole: "viewer",
      annotations: READ,
      input: {
        runId,
        fromStepId: RerunInput.shape.fromStepId.describe(
          "Rerun from this step (earlier outputs reused); omit for the whole run",
        ),
        version: RerunInput.shape.version.describe(
          "pinned (the run's own version, default) or current (the workflow's current version)",
        ),
      },
    },
    (args) => previewRerun({ ctx, input: args }),
  );
}
