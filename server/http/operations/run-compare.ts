import { z } from "zod";
import { RerunInput } from "@/lib/schemas/runs";
import { defineOperation } from "../operation";
import { Id, IdParams, JsonObject } from "./common";

const tag = "Runs";

export const diffRunsOp = defineOperation({
  method: "GET",
  path: "/runs/{id}/diff",
  operationId: "diffRuns",
  summary: "Compare two runs step by step",
  description:
    "Run `{id}` (B) against `with` (A; default: the previous run of the same workflow), of any versions: per step (loop iterations by path) the verdict `same | different | only_a | only_b`, status, attempts, duration, branch port, and JSON diffs of the input and of the result (`output.data`). `summary` names the steps that ran in one run only, the branches that changed and loop iteration counts (`pathsDiffer`). Each diff is capped (50 changes, values clipped to 1,000 characters; `truncated`, `totalChanges`, `clipped` say so), so a megabyte output answers a bounded diff. 412 when there is no previous run to compare with.",
  tag,
  minRole: "viewer",
  params: IdParams,
  query: z.object({
    with: Id.optional().meta({
      description: "The run to compare with (A); default: the previous run of the workflow",
    }),
  }),
  responses: { 200: { description: "The diff", schema: JsonObject } },
  errors: [412],
});

export const previewRerunOp = defineOperation({
  method: "GET",
  path: "/runs/{id}/rerun/preview",
  operationId: "previewRerun",
  summary: "What a rerun would repeat (dry run)",
  description:
    "Nothing is started. `rerun` lists the steps that would run again in order; each side-effecting one has `idempotency`: the key the rerun would send (`<new run id>` stands for the id it gets), how it is sent (`sentAs`), the key the original run sent (`originalKey`) and whether the receiver sees the same key again (`repeatsOriginal`). `reused`: steps whose outputs a rerun from `fromStepId` reuses. The same answer as POST /runs/{id}/rerun with `dryRun: true`, for viewers too.",
  tag,
  minRole: "viewer",
  params: IdParams,
  query: z.object({
    fromStepId: RerunInput.shape.fromStepId,
    version: RerunInput.shape.version,
  }),
  responses: { 200: { description: "The preview", schema: JsonObject } },
  errors: [412],
});
