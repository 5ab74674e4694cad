/**
 * A pending task on an existing run, opened the way the engine opens one (for tests of the task
 * transports that need a task without running a workflow). Assigned to every role by default.
 */
import { eq } from "drizzle-orm";
import type { Db } from "@/db/client";
import { runs } from "@/db/schema";
import { ROLES } from "@/lib/schemas/roles";
import { openTask, type OpenTaskArgs } from "../services/run-state/task-gate";
import type { WorkspaceFixture } from "./harness";

export async function openTestTask(
  db: Db,
  fx: WorkspaceFixture,
  runId: string,
  over: Partial<Omit<OpenTaskArgs, "key" | "workflowId">> = {},
): Promise<string> {
  const [run] = await db.select().from(runs).where(eq(runs.id, runId));
  const opened = await openTask(db, {
    key: {
      runId,
      workspaceId: fx.workspaceId,
      stepId: "work",
      path: "work",
      stepType: "task",
      attempt: 1,
    },
    workflowId: run!.workflowId!,
    instructions: "Do it",
    assignee: { roles: [...ROLES] },
    outputSchema: null,
    onTimeout: "fail",
    dueAt: null,
    expiresAt: new Date(Date.now() + 3_600_000),
    now: new Date(),
    ...over,
  });
  return opened.taskId;
}
