import { index, integer, jsonb, pgEnum, pgTable, text, uniqueIndex } from "drizzle-orm/pg-core";
import { TASK_STATUSES } from "../../lib/schemas/tasks";
import { createdAt, tstz } from "./common";
import { runs } from "./runs";
import { workspaces } from "./workspaces";

export const taskStatusEnum = pgEnum("task_status", TASK_STATUSES);

/**
 * Work a `task` step hands to a person or an agent. One row per (run, step path, attempt); the
 * step waits until the row leaves `pending` (compare-and-set), so a task completes once.
 */
export const tasks = pgTable(
  "tasks",
  {
    id: text("id").primaryKey(),
    workspaceId: text("workspace_id")
      .notNull()
      .references(() => workspaces.id, { onDelete: "cascade" }),
    runId: text("run_id")
      .notNull()
      .references(() => runs.id, { onDelete: "cascade" }),
    /** Null for an inline run (no saved workflow). */
    workflowId: text("workflow_id"),
    stepId: text("step_id").notNull(),
    stepPath: text("step_path").notNull(),
    attempt: integer("attempt").notNull(),
    status: taskStatusEnum("status").notNull(),
    instructions: text("instructions").notNull(),
    /** { users?: string[] (lower-cased ids or emails), roles?: Role[], tokens?: string[] } */
    assignee: jsonb("assignee")
      .$type<{ users?: string[]; roles?: string[]; tokens?: string[] }>()
      .notNull(),
    /** The step's outputSchema (field name → input spec), or null for free-form output. */
    outputSchema: jsonb("output_schema").$type<Record<string, unknown>>(),
    output: jsonb("output").$type<unknown>(),
    failureReason: text("failure_reason"),
    onTimeout: text("on_timeout").notNull().default("fail"),
    dueAt: tstz("due_at"),
    expiresAt: tstz("expires_at").notNull(),
    finishedAt: tstz("finished_at"),
    /** `user` or `token`, with the user or token id and the user it acts for. */
    finishedByType: text("finished_by_type"),
    finishedById: text("finished_by_id"),
    finishedByUserId: text("finished_by_user_id"),
    finishedVia: text("finished_via"),
    createdAt: createdAt(),
  },
  (t) => [
    uniqueIndex("tasks_run_step_attempt_key").on(t.runId, t.stepPath, t.attempt),
    index("tasks_workspace_status_idx").on(t.workspaceId, t.status, t.expiresAt),
    index("tasks_run_idx").on(t.runId),
  ],
);
