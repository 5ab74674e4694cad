import { CompleteTaskInput, FailTaskInput, ListTasksInput, TaskRef } from "@/lib/schemas/tasks";
import { completeTask } from "../../services/tasks/complete-task";
import { failTask } from "../../services/tasks/fail-task";
import { getTask } from "../../services/tasks/get-task";
import { listTasks } from "../../services/tasks/list-tasks";
import { roleProcedure, router } from "../init";

/** Task steps (services/tasks): any member reads; assignees (and admins) complete or fail. */
export const taskRouter = router({
  list: roleProcedure("viewer")
    .input(ListTasksInput.optional())
    .query(({ ctx, input }) => listTasks({ ctx: ctx.svc, input })),
  get: roleProcedure("viewer")
    .input(TaskRef)
    .query(({ ctx, input }) => getTask({ ctx: ctx.svc, input })),
  complete: roleProcedure("viewer")
    .input(CompleteTaskInput)
    .mutation(({ ctx, input }) => completeTask({ ctx: ctx.svc, input, via: "ui" })),
  fail: roleProcedure("viewer")
    .input(FailTaskInput)
    .mutation(({ ctx, input }) => failTask({ ctx: ctx.svc, input, via: "ui" })),
});
