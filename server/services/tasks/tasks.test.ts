import { and, eq } from "drizzle-orm";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { auditEvents, tasks } from "@/db/schema";
import { ConflictError, ForbiddenError, ValidationError } from "@/server/errors";
import { cancelRun } from "@/server/services/runs/cancel-run";
import { completeTask } from "@/server/services/tasks/complete-task";
import { failTask } from "@/server/services/tasks/fail-task";
import { getTask } from "@/server/services/tasks/get-task";
import { listTasks } from "@/server/services/tasks/list-tasks";
import { startRunHarness, type RunHarness } from "@/server/testing/run-harness";

let e: RunHarness;
beforeAll(async () => {
  e = await startRunHarness("tasks");
});
afterAll(async () => {
  await e?.close();
});

/**
 *   review (task) ──success──▶ after (transform: uses review's output)
 *        └──────────error────▶ handle (only with `errorEdge`)
 */
function taskFlow(
  config: Record<string, unknown> = {},
  opts: { errorEdge?: boolean; constraints?: Record<string, unknown> } = {},
) {
  return {
    schemaVersion: 1,
    name: "Review",
    constraints: opts.constraints ?? {},
    inputs: { pr: { type: "string", default: "42" } },
    steps: [
      {
        id: "review",
        type: "task",
        config: {
          instructions: "Review PR {{ input.pr }}",
          assignee: { roles: ["editor"] },
          outputSchema: {
            verdict: { type: "string", required: true, enum: ["ok", "changes"] },
            score: { type: "number" },
          },
          due: "10m",
          ...config,
        },
      },
      {
        id: "after",
        type: "transform",
        config: { value: "verdict {{ steps.review.output.data.verdict }}" },
      },
      ...(opts.errorEdge
        ? [{ id: "handle", type: "transform", config: { value: "handled" } }]
        : []),
    ],
    edges: [
      { from: "review", to: "after" },
      ...(opts.errorEdge ? [{ from: "review", port: "error", to: "handle" }] : []),
    ],
    // With the error edge, `after` may be skipped: the run output would not resolve.
    ...(opts.errorEdge ? {} : { output: "{{ steps.after.output.data }}" }),
  };
}

const pendingTask = (runId: string) => e.pendingTask(runId);

const stepsOf = async (runId: string) =>
  Object.fromEntries((await e.steps(runId)).map((s) => [s.path, s]));

describe("task steps", () => {
  it("waits for an assignee, lists it in their queue, and resumes with the completed output", async () => {
    const runId = await e.start(await e.workflow(taskFlow()));
    const t = await pendingTask(runId);
    await e.waitFor(runId, ["waiting"]);
    expect(t.instructions).toBe("Review PR 42");
    expect(t.dueAt!.getTime() - t.createdAt.getTime()).toBe(10 * 60_000);

    const mine = await listTasks({ ctx: e.ws.ctx("editor"), input: { mine: true } });
    expect(mine.items.map((i) => i.id)).toEqual([t.id]);
    expect(mine.items[0]).toMatchObject({
      canAct: true,
      assignedToMe: true,
      workflowName: "Review",
    });
    // Assigned by exact role: viewers and approvers see nothing in their queue.
    expect((await listTasks({ ctx: e.ws.ctx("viewer"), input: {} })).items).toEqual([]);
    expect((await listTasks({ ctx: e.ws.ctx("approver"), input: {} })).items).toEqual([]);
    // Everyone in the workspace may read it; only assignees (and admins) may act.
    const asViewer = await getTask({ ctx: e.ws.ctx("viewer"), input: { taskId: t.id } });
    expect(asViewer).toMatchObject({
      canAct: false,
      whyNot: expect.stringContaining("roles editor"),
    });
    await expect(
      completeTask({
        ctx: e.ws.ctx("viewer"),
        input: { taskId: t.id, output: { verdict: "ok" } },
        via: "ui",
      }),
    ).rejects.toBeInstanceOf(ForbiddenError);

    const done = await completeTask({
      ctx: e.ws.ctx("editor"),
      input: { taskId: t.id, output: { verdict: "changes", score: 3 } },
      via: "ui",
    });
    expect(done).toMatchObject({ status: "completed", output: { verdict: "changes", score: 3 } });
    const run = await e.waitFor(runId, ["completed", "failed", "cancelled"]);
    expect(run.status).toBe("completed");
    expect(run.output).toBe("verdict changes");
    const steps = await stepsOf(runId);
    expect(steps.review!.output).toMatchObject({
      type: "task",
      data: { verdict: "changes", score: 3 },
      meta: {
        taskId: t.id,
        timedOut: false,
        finishedBy: { type: "user", userId: e.ws.members.editor },
      },
    });
    const [audit] = await e.db.db
      .select()
      .from(auditEvents)
      .where(and(eq(auditEvents.targetId, t.id), eq(auditEvents.action, "task.complete")));
    expect(audit!.data).toMatchObject({ runId, stepId: "review", via: "ui", asAssignee: true });
    expect(await e.events(runId)).toEqual(
      expect.arrayContaining(["task.requested:review", "task.completed:review"]),
    );
  });

  it("refuses output that does not match the outputSchema, naming the field", async () => {
    const runId = await e.start(await e.workflow(taskFlow()));
    const t = await pendingTask(runId);
    const attempt = (output: Record<string, unknown>) =>
      completeTask({ ctx: e.ws.ctx("editor"), input: { taskId: t.id, output }, via: "api" });
    const missing = await attempt({ score: 1 }).catch((err: unknown) => err);
    expect(missing).toBeInstanceOf(ValidationError);
    expect((missing as ValidationError).message).toMatch(/Output field "verdict" is required/);
    expect((missing as ValidationError).issues[0]!.path).toEqual(["output", "verdict"]);
    await expect(attempt({ verdict: "ok", score: "high" })).rejects.toThrow(
      /Output field "score" must be a number/,
    );
    await expect(attempt({ verdict: "maybe" })).rejects.toThrow(/must be one of "ok", "changes"/);
    await expect(attempt({ verdict: "ok", extra: 1 })).rejects.toThrow(
      /Unknown output field "extra"; this task takes score, verdict\./,
    );
    expect((await e.db.db.select().from(tasks).where(eq(tasks.id, t.id)))[0]!.status).toBe(
      "pending",
    );
    await attempt({ verdict: "ok" });
    expect((await e.waitFor(runId, ["completed", "failed"])).output).toBe("verdict ok");
  });

  it("completes once under concurrent completions; the loser learns who won", async () => {
    const extraEditor = await e.ws.addMember("editor");
    const runId = await e.start(await e.workflow(taskFlow()));
    const t = await pendingTask(runId);
    const other = { ...e.ws.ctx("editor"), actor: { type: "user" as const, userId: extraEditor } };
    const results = await Promise.allSettled([
      completeTask({
        ctx: e.ws.ctx("editor"),
        input: { taskId: t.id, output: { verdict: "ok" } },
        via: "ui",
      }),
      completeTask({
        ctx: other,
        input: { taskId: t.id, output: { verdict: "changes" } },
        via: "ui",
      }),
    ]);
    expect(results.filter((r) => r.status === "fulfilled")).toHaveLength(1);
    const lost = results.find((r) => r.status === "rejected") as PromiseRejectedResult;
    expect(lost.reason).toBeInstanceOf(ConflictError);
    expect((lost.reason as Error).message).toMatch(
      /was already completed by Engine (editor|extra editor)/,
    );
    // Admins may act on any task, but it is finished: a conflict too, not a second outcome.
    await expect(
      failTask({ ctx: e.ws.ctx("admin"), input: { taskId: t.id, reason: "late" }, via: "ui" }),
    ).rejects.toBeInstanceOf(ConflictError);
    const run = await e.waitFor(runId, ["completed", "failed"]);
    const winner = (results.find((r) => r.status === "fulfilled") as PromiseFulfilledResult<{
      output: unknown;
    }>)!.value;
    expect(run.output).toBe(`verdict ${(winner.output as { verdict: string }).verdict}`);
    expect(
      await e.db.db.select().from(auditEvents).where(eq(auditEvents.targetId, t.id)),
    ).toHaveLength(1);
  });

  it("fails with a reason: the step fails (user class) and the error edge runs", async () => {
    const runId = await e.start(await e.workflow(taskFlow({}, { errorEdge: true })));
    const t = await pendingTask(runId);
    await expect(
      failTask({ ctx: e.ws.ctx("editor"), input: { taskId: t.id, reason: "  " }, via: "ui" }),
    ).rejects.toThrow(/reason/);
    // An admin who is not an assignee may fail it (unblocking a run); the audit says so.
    await failTask({
      ctx: e.ws.ctx("admin"),
      input: { taskId: t.id, reason: "PR was closed" },
      via: "ui",
    });
    const run = await e.waitFor(runId, ["completed", "failed", "cancelled"]);
    expect(run.error).toBeNull();
    expect(run.status).toBe("completed");
    const steps = await stepsOf(runId);
    expect(steps.review).toMatchObject({
      status: "failed",
      failureClass: "user",
      error: { message: 'Task "review" was failed: PR was closed', reason: "PR was closed" },
    });
    expect(steps.after!.status).toBe("skipped");
    expect(steps.handle!.status).toBe("completed");
    const [audit] = await e.db.db
      .select()
      .from(auditEvents)
      .where(and(eq(auditEvents.targetId, t.id), eq(auditEvents.action, "task.fail")));
    expect(audit!.data).toMatchObject({ reason: "PR was closed", asAssignee: false });

    // Without an error edge the run fails with the reason.
    const r2 = await e.start(await e.workflow(taskFlow()));
    const t2 = await pendingTask(r2);
    await failTask({
      ctx: e.ws.ctx("editor"),
      input: { taskId: t2.id, reason: "cannot" },
      via: "api",
    });
    const run2 = await e.waitFor(r2, ["completed", "failed", "cancelled"]);
    expect(run2.status).toBe("failed");
    expect(JSON.stringify(run2.error)).toContain("cannot");
  });

  it("applies onTimeout: fail fails the step, continue completes it with null output", async () => {
    const failing = await e.start(await e.workflow(taskFlow({ timeout: "30m" })));
    await pendingTask(failing);
    await e.waitFor(failing, ["waiting"]);
    e.h.clock.advance(31 * 60_000);
    const run1 = await e.waitFor(failing, ["completed", "failed", "cancelled"]);
    expect(run1.status).toBe("failed");
    expect((await stepsOf(failing)).review!.error).toMatchObject({
      message: 'Task "review" was not completed before its timeout',
      code: "task_timeout",
    });
    const [t1] = await e.db.db.select().from(tasks).where(eq(tasks.runId, failing));
    expect(t1!.status).toBe("expired");
    await expect(
      completeTask({
        ctx: e.ws.ctx("editor"),
        input: { taskId: t1!.id, output: { verdict: "ok" } },
        via: "ui",
      }),
    ).rejects.toThrow(/already expired/);

    const continuing = await e.start(
      await e.workflow(
        taskFlow(
          { timeout: "2h", onTimeout: "continue", due: "1h" },
          { constraints: { timeoutMs: 3 * 3600_000 } },
        ),
      ),
    );
    await pendingTask(continuing);
    await e.waitFor(continuing, ["waiting"]);
    e.h.clock.advance(2 * 3600_000);
    const run2 = await e.waitFor(continuing, ["completed", "failed", "cancelled"]);
    expect(run2.status).toBe("completed");
    expect((await stepsOf(continuing)).review!.output).toMatchObject({
      data: null,
      meta: { timedOut: true },
    });
  });

  it("times the run out when its deadline comes first, and closes the task", async () => {
    const runId = await e.start(
      await e.workflow(
        taskFlow({ timeout: "7d", due: "1d" }, { constraints: { timeoutMs: 3_600_000 } }),
      ),
    );
    await pendingTask(runId);
    await e.waitFor(runId, ["waiting"]);
    e.h.clock.advance(3_600_000 + 60_000);
    const run = await e.waitFor(runId, ["completed", "failed", "cancelled", "timed_out"]);
    expect(run.status).toBe("timed_out");
    const [t] = await e.db.db.select().from(tasks).where(eq(tasks.runId, runId));
    expect(["expired", "cancelled"]).toContain(t!.status);
  });

  it("cancelling the run cancels its open task and takes it out of the queue", async () => {
    const runId = await e.start(await e.workflow(taskFlow()));
    const t = await pendingTask(runId);
    await e.waitFor(runId, ["waiting"]);
    await cancelRun({ ctx: e.ws.ctx("editor"), input: { runId } });
    await e.waitFor(runId, ["cancelled"]);
    const [row] = await e.db.db.select().from(tasks).where(eq(tasks.id, t.id));
    expect(row!.status).toBe("cancelled");
    const mine = await listTasks({ ctx: e.ws.ctx("editor"), input: {} });
    expect(mine.items.map((i) => i.id)).not.toContain(t.id);
    await expect(
      completeTask({
        ctx: e.ws.ctx("editor"),
        input: { taskId: t.id, output: { verdict: "ok" } },
        via: "ui",
      }),
    ).rejects.toThrow(/already cancelled/);
  });
});
