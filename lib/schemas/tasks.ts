import { z } from "zod";

/** A task step's record (SPEC §4 `task`): open while `pending`, then exactly one final status. */
export const TASK_STATUSES = ["pending", "completed", "failed", "expired", "cancelled"] as const;
export const TaskStatus = z.enum(TASK_STATUSES);
export type TaskStatus = z.infer<typeof TaskStatus>;

/** How a task was completed or failed (kept on the task and in the audit row). */
export const TASK_CHANNELS = ["ui", "api", "mcp"] as const;
export type TaskChannel = (typeof TASK_CHANNELS)[number];

const id = z.string().min(1).max(64);

export const ListTasksInput = z.object({
  /** Only tasks assigned to the caller (by user, role or API token); false = every task. */
  mine: z.boolean().default(true),
  /** Default: pending only. */
  status: z.array(TaskStatus).min(1).max(TASK_STATUSES.length).default(["pending"]),
  limit: z.number().int().min(1).max(200).default(50),
  cursor: z.string().max(200).optional(),
});
export type ListTasksInput = z.input<typeof ListTasksInput>;

export const TaskRef = z.object({ taskId: id });
export type TaskRef = z.infer<typeof TaskRef>;

export const CompleteTaskInput = z.object({
  taskId: id,
  /** The reported output: checked against the task's outputSchema, then `steps.<id>.output.data`. */
  output: z.record(z.string(), z.unknown()).default({}),
});
export type CompleteTaskInput = z.input<typeof CompleteTaskInput>;

export const FailTaskInput = z.object({
  taskId: id,
  reason: z.string().trim().min(1, { message: "Say why the task failed." }).max(2_000),
});
export type FailTaskInput = z.input<typeof FailTaskInput>;
