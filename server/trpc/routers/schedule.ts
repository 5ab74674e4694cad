import { ListScheduleTicksInput } from "@/lib/schemas/schedules";
import { PreviewScheduleInput } from "@/lib/schemas/triggers";
import { listScheduleTicks } from "../../services/triggers/list-schedule-ticks";
import { previewSchedule } from "../../services/triggers/preview-schedule";
import { roleProcedure, router } from "../init";

const viewer = roleProcedure("viewer");

export const scheduleRouter = router({
  preview: viewer
    .input(PreviewScheduleInput)
    .query(({ ctx, input }) => previewSchedule({ ctx: ctx.svc, input })),
  ticks: viewer
    .input(ListScheduleTicksInput)
    .query(({ ctx, input }) => listScheduleTicks({ ctx: ctx.svc, input })),
});
