/**
 * Inline runs (issue #15 item 5): an unsaved definition is validated with the workspace policy,
 * snapshotted by hash and executed by the same engine with no workflow — admitted, audited,
 * listed and rerun like any run; its approval gates and tasks are decided like any others.
 */
import { and, eq } from "drizzle-orm";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { auditEvents, definitionContents, quotaUsage, runs, tasks, workspaces } from "@/db/schema";
import { workflowLabel } from "@/lib/schemas/runs";
import { ForbiddenError, ValidationError } from "@/server/errors";
import { createWorkspaceFixture } from "@/server/testing/harness";
import { decideApproval } from "@/server/services/approvals/decide-approval";
import { listApprovals } from "@/server/services/approvals/list-approvals";
import { cancelRun } from "@/server/services/runs/cancel-run";
import { listRuns } from "@/server/services/runs/list-runs";
import { getRun } from "@/server/services/runs/get-run";
import { rerunRun } from "@/server/services/runs/rerun-run";
import { startInlineRun } from "@/server/services/runs/start-inline-run";
import { updateWorkspacePolicies } from "@/server/services/settings/update-workspace-policies";
import { completeTask } from "@/server/services/tasks/complete-task";
import { getTask } from "@/server/services/tasks/get-task";
import { listTasks } from "@/server/services/tasks/list-tasks";
import { startRunHarness, type RunHarness } from "@/server/testing/run-harness";

let e: RunHarness;
beforeAll(async () => {
  e = await startRunHarness("inline-runs");
});
afterAll(async () => {
  await e?.close();
});

const TERMINAL = ["completed", "failed", "cancelled", "timed_out"];

/*
 *   shape        (input n: 21 → output { n: 21, ok: true })
 */
const shaper = {
  schemaVersion: 1,
  name: "Shaper",
  inputs: { n: { type: "number", required: true } },
  steps: [{ id: "shape", type: "transform", config: { value: { n: "{{ input.n }}", ok: true } } }],
  output: "{{ steps.shape.output.data }}",
};

/** Runs counted against the workspace's runs-per-month quota (all windows). */
async function runsCharged(workspaceId: string) {
  const rows = await e.db.db
    .select({ used: quotaUsage.used })
    .from(quotaUsage)
    .where(and(eq(quotaUsage.workspaceId, workspaceId), eq(quotaUsage.metric, "runs")));
  return rows.reduce((n, r) => n + r.used, 0);
}

async function contentCount(workspaceId: string) {
  return (
    await e.db.db
      .select({ hash: definitionContents.hash })
      .from(definitionContents)
      .where(eq(definitionContents.workspaceId, workspaceId))
  ).length;
}

describe("inline runs", () => {
  it("runs an unsaved definition to completion with its output, audited, listed as inline and rerunnable", async () => {
    const r = await startInlineRun({
      ctx: e.ws.ctx("editor"),
      input: { definition: shaper, input: { n: 21 } },
    });
    const run = await e.waitFor(r.runId, TERMINAL);
    expect([run.status, run.workflowId, run.versionId, run.version]).toEqual([
      "completed",
      null,
      null,
      "inline",
    ]);
    expect(run.hash).toBe(r.hash);
    expect(run.output).toEqual({ n: 21, ok: true });

    const [audit] = await e.db.db
      .select()
      .from(auditEvents)
      .where(and(eq(auditEvents.targetId, r.runId), eq(auditEvents.action, "run.start_inline")));
    expect(audit?.data).toMatchObject({ hash: r.hash });

    const got = await getRun({ ctx: e.ws.ctx("viewer"), input: { runId: r.runId } });
    expect([got.workflowName, got.workflowSlug]).toEqual(["inline", null]);
    expect(got.definition).toMatchObject({ name: "Shaper" });

    const listed = await listRuns({ ctx: e.ws.ctx("viewer"), input: { inline: true } });
    expect(listed.items.map((i) => [i.id, i.workflowId, i.workflowName])).toContainEqual([
      r.runId,
      null,
      "inline",
    ]);
    // Inline runs show up in the unfiltered list too (not dropped by a join on workflows).
    const all = await listRuns({ ctx: e.ws.ctx("viewer"), input: {} });
    expect(all.items.map((i) => i.id)).toContain(r.runId);

    // A rerun reuses the run's snapshot (there is no workflow with a "current" version).
    const again = await rerunRun({
      ctx: e.ws.ctx("editor"),
      input: { runId: r.runId, input: { n: 5 } },
    });
    const second = await e.waitFor(again.runId, TERMINAL);
    expect([second.status, second.workflowId, second.hash, second.output]).toEqual([
      "completed",
      null,
      r.hash,
      { n: 5, ok: true },
    ]);
    await expect(
      rerunRun({ ctx: e.ws.ctx("editor"), input: { runId: r.runId, version: "current" } }),
    ).rejects.toThrow(/inline run has no workflow/);
  });

  it("refuses an invalid definition with every issue and its path, storing nothing", async () => {
    const fx = await createWorkspaceFixture(e.db.db, "Invalid");
    const before = await contentCount(fx.workspaceId);
    const err = await startInlineRun({
      ctx: fx.ctx("editor"),
      input: {
        definition: {
          schemaVersion: 1,
          name: "Broken",
          steps: [{ id: "a", type: "transform", config: { value: 1 } }],
          edges: [{ from: "a", to: "nowhere" }],
        },
      },
    }).catch((x: unknown) => x);
    expect(err).toBeInstanceOf(ValidationError);
    const issues = (err as ValidationError).issues;
    expect(issues.length).toBeGreaterThan(0);
    expect(issues[0]!.path?.[0]).toBe("edges");
    expect(await contentCount(fx.workspaceId)).toBe(before);
    expect(await e.db.db.select().from(runs).where(eq(runs.workspaceId, fx.workspaceId))).toEqual(
      [],
    );
    expect(await runsCharged(fx.workspaceId)).toBe(0);

    // A bad input is refused against the definition's inputs, naming the field.
    await expect(
      startInlineRun({ ctx: fx.ctx("editor"), input: { definition: shaper, input: {} } }),
    ).rejects.toMatchObject({ issues: [{ path: ["input", "n"] }] });
  });

  it("applies the workspace policy (forbidden step types) and refuses propose_change (it needs a saved workflow)", async () => {
    const fx = await createWorkspaceFixture(e.db.db, "Policy");
    await updateWorkspacePolicies({
      ctx: fx.ctx("admin"),
      input: { scriptStepsEnabled: false, allowedPrivateHosts: [], forbiddenStepTypes: ["http"] },
    });
    const http = {
      schemaVersion: 1,
      name: "Fetch",
      steps: [{ id: "get", type: "http", config: { url: "https://example.com" } }],
    };
    await expect(
      startInlineRun({ ctx: fx.ctx("editor"), input: { definition: http } }),
    ).rejects.toMatchObject({
      issues: [{ code: "FORBIDDEN_STEP_TYPE", path: ["steps", 0, "type"] }],
    });
    // A proposal targets the workflow it runs in: an inline run has none.
    const propose = {
      schemaVersion: 1,
      name: "Propose",
      constraints: { allowSelfModification: true },
      steps: [
        {
          id: "p",
          type: "propose_change",
          config: { summary: "tweak", patch: [{ op: "replace", path: "/name", value: "x" }] },
        },
      ],
    };
    await expect(
      startInlineRun({ ctx: fx.ctx("editor"), input: { definition: propose } }),
    ).rejects.toMatchObject({
      issues: [
        expect.objectContaining({ code: "NEEDS_SAVED_WORKFLOW", path: ["steps", 0, "type"] }),
      ],
    });
  });

  /*
   *   ask (approval, form: ticket) ──approved──▶ ship (transform: uses the form)
   */
  it("stops at an approval gate with no workflow, listed in the inbox as an inline run, and completes with the decision", async () => {
    const fx = await createWorkspaceFixture(e.db.db, "Inline gate");
    const gated = {
      schemaVersion: 1,
      name: "Gated scratch",
      inputs: { v: { type: "string", required: true } },
      steps: [
        {
          id: "ask",
          type: "approval",
          config: {
            prompt: "Ship {{ input.v }}?",
            form: { ticket: { type: "string", required: true } },
          },
        },
        {
          id: "ship",
          type: "transform",
          config: { value: "shipped {{ input.v }} under {{ steps.ask.output.data.form.ticket }}" },
        },
      ],
      edges: [{ from: "ask", port: "approved", to: "ship" }],
      output: { ship: "{{ steps.ship.output.data }}", form: "{{ steps.ask.output.data.form }}" },
    };
    const r = await startInlineRun({
      ctx: fx.ctx("editor"),
      input: { definition: gated, input: { v: "1.0" } },
    });
    const a = await e.pendingApproval(r.runId);
    expect([a.workflowId, a.prompt]).toEqual([null, "Ship 1.0?"]);
    await e.waitFor(r.runId, ["waiting"]);
    const view = await getRun({ ctx: fx.ctx("approver"), input: { runId: r.runId } });
    expect(view.pendingApprovals.map((p) => [p.id, p.canDecide])).toEqual([[a.id, true]]);

    // The inbox keeps the gate (no join drops it), named like inline runs in the runs list;
    // the UI labels it "Inline run" and links the run.
    const inbox = await listApprovals({ ctx: fx.ctx("approver"), input: { scope: "mine" } });
    expect(inbox.map((i) => [i.id, i.runId, i.workflowId, i.workflowName, i.canDecide])).toEqual([
      [a.id, r.runId, null, "inline", true],
    ]);
    expect(workflowLabel(inbox[0]!)).toBe("Inline run");
    // Deciding is still the workspace's rules: a viewer may not, and sees nothing to decide.
    expect(await listApprovals({ ctx: fx.ctx("viewer"), input: { scope: "mine" } })).toEqual([]);
    await expect(
      decideApproval({
        ctx: fx.ctx("viewer"),
        input: { approvalId: a.id, approve: true, form: { ticket: "OPS-1" } },
        via: "ui",
      }),
    ).rejects.toBeInstanceOf(ForbiddenError);

    const decided = await decideApproval({
      ctx: fx.ctx("approver"),
      input: { approvalId: a.id, approve: true, reason: "ok", form: { ticket: "OPS-7" } },
      via: "ui",
    });
    expect(decided.status).toBe("approved");
    const run = await e.waitFor(r.runId, TERMINAL);
    expect([run.status, run.workflowId]).toEqual(["completed", null]);
    expect(run.output).toEqual({ ship: "shipped 1.0 under OPS-7", form: { ticket: "OPS-7" } });
    const [audit] = await e.db.db
      .select()
      .from(auditEvents)
      .where(and(eq(auditEvents.targetId, a.id), eq(auditEvents.action, "approval.approved")));
    expect(audit?.data).toMatchObject({ via: "ui", shownHash: a.shownHash });
    const history = await listApprovals({
      ctx: fx.ctx("approver"),
      input: { scope: "all", status: "decided" },
    });
    expect(history.map((i) => [i.id, i.workflowId, i.status])).toEqual([[a.id, null, "approved"]]);
  });

  /*
   *   review (task, assignee: role editor) ──▶ after (transform: uses the task's output)
   */
  it("waits on a task with no workflow, in the assignee's queue as an inline run, and completes with its output", async () => {
    const fx = await createWorkspaceFixture(e.db.db, "Inline task");
    const review = {
      schemaVersion: 1,
      name: "Review scratch",
      steps: [
        {
          id: "review",
          type: "task",
          config: {
            instructions: "Review the draft",
            assignee: { roles: ["editor"] },
            outputSchema: { verdict: { type: "string", required: true, enum: ["ok", "no"] } },
          },
        },
        {
          id: "after",
          type: "transform",
          config: { value: "verdict {{ steps.review.output.data.verdict }}" },
        },
      ],
      edges: [{ from: "review", to: "after" }],
      output: "{{ steps.after.output.data }}",
    };
    const r = await startInlineRun({ ctx: fx.ctx("editor"), input: { definition: review } });
    const t = await e.pendingTask(r.runId);
    expect([t.workflowId, t.instructions]).toEqual([null, "Review the draft"]);
    await e.waitFor(r.runId, ["waiting"]);

    const mine = await listTasks({ ctx: fx.ctx("editor"), input: { mine: true } });
    expect(mine.items.map((i) => [i.id, i.runId, i.workflowId, i.workflowName, i.canAct])).toEqual([
      [t.id, r.runId, null, "inline", true],
    ]);
    expect(workflowLabel(mine.items[0]!)).toBe("Inline run");
    // The assignee rule still holds: the viewer may read it but not act on it.
    expect(await getTask({ ctx: fx.ctx("viewer"), input: { taskId: t.id } })).toMatchObject({
      workflowId: null,
      canAct: false,
    });
    await expect(
      completeTask({
        ctx: fx.ctx("viewer"),
        input: { taskId: t.id, output: { verdict: "ok" } },
        via: "ui",
      }),
    ).rejects.toBeInstanceOf(ForbiddenError);

    const done = await completeTask({
      ctx: fx.ctx("editor"),
      input: { taskId: t.id, output: { verdict: "ok" } },
      via: "ui",
    });
    expect(done).toMatchObject({ status: "completed", workflowId: null });
    const run = await e.waitFor(r.runId, TERMINAL);
    expect([run.status, run.workflowId, run.output]).toEqual(["completed", null, "verdict ok"]);
    const rows = await e.db.db.select().from(tasks).where(eq(tasks.runId, r.runId));
    expect(rows.map((x) => [x.status, x.workflowId])).toEqual([["completed", null]]);
  });

  it("is for editors: a viewer is refused", async () => {
    await expect(
      startInlineRun({ ctx: e.ws.ctx("viewer"), input: { definition: shaper, input: { n: 1 } } }),
    ).rejects.toBeInstanceOf(ForbiddenError);
  });

  it("goes through admission: over the per-user limit an inline run queues until a slot frees", async () => {
    const fx = await createWorkspaceFixture(e.db.db, "Admission");
    await e.db.db
      .update(workspaces)
      .set({ settings: { maxActiveRunsPerUser: 1 } })
      .where(eq(workspaces.id, fx.workspaceId));
    const nap = {
      schemaVersion: 1,
      name: "Nap",
      steps: [{ id: "pause", type: "delay", config: { duration: "10m" } }],
    };
    const first = await startInlineRun({ ctx: fx.ctx("editor"), input: { definition: nap } });
    await e.waitFor(first.runId, ["waiting"]);
    const second = await startInlineRun({ ctx: fx.ctx("editor"), input: { definition: nap } });
    expect(second.status).toBe("queued");
    await cancelRun({ ctx: fx.ctx("editor"), input: { runId: first.runId } });
    await e.waitFor(first.runId, ["cancelled"]);
    await e.waitFor(second.runId, ["waiting"]);
    await cancelRun({ ctx: fx.ctx("editor"), input: { runId: second.runId } });
    await e.waitFor(second.runId, ["cancelled"]);
    // Both count towards runs per month, like runs of a workflow.
    expect(await runsCharged(fx.workspaceId)).toBe(2);
  });

  it("repeats with the same idempotency key return the same run; another definition is refused", async () => {
    const ctx = e.ws.ctx("editor");
    const key = `inline-${Math.random()}`;
    const a = await startInlineRun({
      ctx,
      input: { definition: shaper, input: { n: 2 }, idempotencyKey: key },
    });
    const b = await startInlineRun({
      ctx,
      input: { definition: shaper, input: { n: 2 }, idempotencyKey: key },
    });
    expect([b.runId, b.deduplicated]).toEqual([a.runId, true]);
    await expect(
      startInlineRun({
        ctx,
        input: { definition: { ...shaper, name: "Other" }, input: { n: 2 }, idempotencyKey: key },
      }),
    ).rejects.toThrow(/idempotency/i);
    await e.waitFor(a.runId, TERMINAL);
  });
});
