import { z } from "zod";
import { CompleteTaskInput, FailTaskInput, TaskStatus } from "@/lib/schemas/tasks";
import { defineOperation } from "../operation";
import { IdParams, JsonObject, Limit, page, QueryBool } from "./common";

const tag = "Tasks";

export const listTasksOp = defineOperation({
  method: "GET",
  path: "/tasks",
  operationId: "listTasks",
  summary: "List tasks (work waiting for a person or an agent)",
  description:
    "Soonest due first. `mine=1` (the default): tasks assigned to this token — by its id, its creator, or its role. Each task carries its `instructions`, `outputSchema` (the fields to report) and `dueAt`/`expiresAt`.",
  tag,
  minRole: "viewer",
  query: z.object({
    mine: QueryBool.meta({ description: "Only tasks assigned to the caller (default true)" }),
    status: z
      .array(TaskStatus)
      .min(1)
      .max(5)
      .optional()
      .meta({ description: "Default pending. Repeat the key or separate with commas" }),
    limit: Limit(200),
    cursor: z.string().max(200).optional(),
  }),
  responses: { 200: { description: "One page", schema: page("Tasks") } },
});

export const getTaskOp = defineOperation({
  method: "GET",
  path: "/tasks/{id}",
  operationId: "getTask",
  summary: "Get a task",
  tag,
  minRole: "viewer",
  params: IdParams,
  responses: { 200: { description: "The task", schema: JsonObject } },
});

export const completeTaskOp = defineOperation({
  method: "POST",
  path: "/tasks/{id}/complete",
  operationId: "completeTask",
  summary: "Complete a task with its output",
  description:
    "The output is checked against the task's outputSchema (400 naming the field) and becomes `steps.<id>.output.data`; the run resumes. Assignees (and workspace admins) only; a task completes once (409 naming who finished it).",
  tag,
  minRole: "viewer",
  params: IdParams,
  body: CompleteTaskInput.omit({ taskId: true }).strict(),
  responses: { 200: { description: "The completed task", schema: JsonObject } },
  errors: [409],
});

export const failTaskOp = defineOperation({
  method: "POST",
  path: "/tasks/{id}/fail",
  operationId: "failTask",
  summary: "Fail a task with a reason",
  description: "The step fails with the reason and the run follows its `error` edge, if any.",
  tag,
  minRole: "viewer",
  params: IdParams,
  body: FailTaskInput.omit({ taskId: true }).strict(),
  responses: { 200: { description: "The failed task", schema: JsonObject } },
  errors: [409],
});
