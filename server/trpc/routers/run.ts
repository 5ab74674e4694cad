import { z } from "zod";
import {
  CancelRunInput,
  ListRunsInput,
  RerunInput,
  RunRef,
  StartInlineRunInput,
  StartRunInput,
} from "@/lib/schemas/runs";
import { DiffRunsInput } from "@/lib/schemas/run-diff";
import { cancelRun } from "../../services/runs/cancel-run";
import { diffRuns } from "../../services/runs/diff-runs";
import { getRun } from "../../services/runs/get-run";
import { listRunEvents } from "../../services/runs/list-run-events";
import { listRunSteps } from "../../services/runs/list-run-steps";
import { listRuns } from "../../services/runs/list-runs";
import { previewRerun } from "../../services/runs/preview-rerun";
import { rerunRun } from "../../services/runs/rerun-run";
import { startRun } from "../../services/runs/start-run";
import { startInlineRun } from "../../services/runs/start-inline-run";
import { roleProcedure, router } from "../init";

const viewer = roleProcedure("viewer");
const editor = roleProcedure("editor");

export const runRouter = router({
  list: viewer
    .input(ListRunsInput.optional())
    .query(({ ctx, input }) => listRuns({ ctx: ctx.svc, input })),
  get: viewer.input(RunRef).query(({ ctx, input }) => getRun({ ctx: ctx.svc, input })),
  steps: viewer.input(RunRef).query(({ ctx, input }) => listRunSteps({ ctx: ctx.svc, input })),
  events: viewer
    .input(
      z.object({ runId: z.string().min(1).max(64), after: z.number().int().min(0).optional() }),
    )
    .query(({ ctx, input }) => listRunEvents({ ctx: ctx.svc, input })),
  start: editor
    .input(StartRunInput)
    .mutation(({ ctx, input }) => startRun({ ctx: ctx.svc, input })),
  startInline: editor
    .input(StartInlineRunInput)
    .mutation(({ ctx, input }) => startInlineRun({ ctx: ctx.svc, input })),
  cancel: editor
    .input(CancelRunInput)
    .mutation(({ ctx, input }) => cancelRun({ ctx: ctx.svc, input })),
  rerun: editor.input(RerunInput).mutation(({ ctx, input }) => rerunRun({ ctx: ctx.svc, input })),
  previewRerun: viewer
    .input(RerunInput)
    .query(({ ctx, input }) => previewRerun({ ctx: ctx.svc, input })),
  diff: viewer.input(DiffRunsInput).query(({ ctx, input }) => diffRuns({ ctx: ctx.svc, input })),
});
