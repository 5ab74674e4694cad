import "server-only";
import { and, eq } from "drizzle-orm";
import type { Db } from "@/db/client";
import { tasks } from "@/db/schema";
import { newId } from "@/lib/ids";
import type { TaskStatus } from "@/lib/schemas/tasks";
import { appendRunEvents } from "../runs/run-events";
import { openGate } from "./open-gate";
import type { AttemptKey } from "./step-records";
import { transitionTask } from "./transition";

export interface OpenTaskArgs {
  key: AttemptKey;
  /** Null for an inline run. */
  workflowId: string | null;
  instructions: string;
  assignee: { users?: string[]; roles?: string[]; tokens?: string[] };
  outputSchema: Record<string, unknown> | null;
  onTimeout: "fail" | "continue";
  dueAt: Date | null;
  expiresAt: Date;
  now: Date;
}

/**
 * Opens a task: its record and the waiting step, in one transaction. Idempotent per (run, step
 * path, attempt), so a re-executed durable step finds the same task. User entries are stored
 * lower-cased: they match ids and emails case-insensitively, as approvers do.
 */
export async function openTask(db: Db, a: OpenTaskArgs): Promise<{ taskId: string }> {
  const assignee = {
    ...a.assignee,
    ...(a.assignee.users ? { users: a.assignee.users.map((u) => u.toLowerCase()) } : {}),
  };
  const row = await openGate(db, {
    key: a.key,
    now: a.now,
    attemptInput: { instructions: a.instructions, assignee, outputSchema: a.outputSchema },
    insert: async (tx) => {
      const [created] = await tx
        .insert(tasks)
        .values({
          id: newId("task"),
          workspaceId: a.key.workspaceId,
          runId: a.key.runId,
          workflowId: a.workflowId,
          stepId: a.key.stepId,
          stepPath: a.key.path,
          attempt: a.key.attempt,
          status: "pending",
          instructions: a.instructions,
          assignee,
          outputSchema: a.outputSchema,
          onTimeout: a.onTimeout,
          dueAt: a.dueAt,
          expiresAt: a.expiresAt,
          createdAt: a.now,
        })
        .onConflictDoNothing()
        .returning();
      return created;
    },
    find: async (tx) => {
      const [existing] = await tx
        .select()
        .from(tasks)
        .where(
          and(
            eq(tasks.runId, a.key.runId),
            eq(tasks.stepPath, a.key.path),
            eq(tasks.attempt, a.key.attempt),
          ),
        );
      return existing!;
    },
    requested: (created) => ({
      type: "task.requested",
      data: {
        taskId: created.id,
        assignee,
        dueAt: a.dueAt?.toISOString() ?? null,
        expiresAt: a.expiresAt.toISOString(),
      },
    }),
    waiting: (row) => ({ taskId: row.id }),
  });
  return { taskId: row.id };
}

export interface TaskOutcome {
  status: Exclude<TaskStatus, "pending">;
  output: unknown;
  failureReason: string | null;
  onTimeout: "fail" | "continue";
  /** The task expired just now (nobody completed or failed it in time). */
  timedOut: boolean;
  finishedBy: { type: string; id: string; userId: string | null } | null;
  finishedAt: string;
}

/**
 * Reads a task's outcome after the wait ended. The database is the source of truth: a completion
 * that raced the timeout wins if it committed first; otherwise the task expires now
 * (compare-and-set) and the step applies `onTimeout`.
 */
export async function closeTask(db: Db, args: { taskId: string; now: Date }): Promise<TaskOutcome> {
  return db.transaction(async (tx) => {
    const [t] = await tx.select().from(tasks).where(eq(tasks.id, args.taskId)).for("update");
    if (!t) throw new Error(`task ${args.taskId} disappeared`);
    let status = t.status;
    let finishedAt = t.finishedAt ?? args.now;
    let timedOut = false;
    if (status === "pending") {
      status = "expired";
      timedOut = true;
      finishedAt = args.now;
      await transitionTask(tx, { id: t.id, to: "expired", set: { finishedAt: args.now } });
      await appendRunEvents(
        tx,
        [
          {
            runId: t.runId,
            workspaceId: t.workspaceId,
            type: "task.expired",
            stepPath: t.stepPath,
            data: { taskId: t.id, onTimeout: t.onTimeout },
          },
        ],
        args.now,
      );
    }
    return {
      status: status as TaskOutcome["status"],
      output: t.output ?? null,
      failureReason: t.failureReason,
      onTimeout: t.onTimeout === "continue" ? "continue" : "fail",
      timedOut,
      finishedBy:
        t.finishedByType && t.finishedById
          ? { type: t.finishedByType, id: t.finishedById, userId: t.finishedByUserId }
          : null,
      finishedAt: finishedAt.toISOString(),
    };
  });
}

/** A task's final status once finished (null while pending or unknown): the gate's look-back. */
export async function taskFinishedStatus(db: Db, taskId: string): Promise<TaskStatus | null> {
  const [row] = await db.select({ status: tasks.status }).from(tasks).where(eq(tasks.id, taskId));
  return row && row.status !== "pending" ? row.status : null;
}
