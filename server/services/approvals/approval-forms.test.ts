import { and, eq } from "drizzle-orm";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { approvalDecisions, auditEvents } from "@/db/schema";
import { ValidationError } from "@/server/errors";
import { decideApproval } from "@/server/services/approvals/decide-approval";
import { listApprovals } from "@/server/services/approvals/list-approvals";
import { getRun } from "@/server/services/runs/get-run";
import { startRunHarness, type RunHarness } from "@/server/testing/run-harness";

/** Approval forms, priority and due dates through the real engine and the decision service. */
let e: RunHarness;
beforeAll(async () => {
  e = await startRunHarness("approval-forms");
});
afterAll(async () => {
  await e?.close();
});

const FORM = {
  ticket: { type: "string", required: true, description: "Change ticket" },
  risk: { type: "string", enum: ["low", "high"], default: "low" },
  window: { type: "number" },
};

function formGate(config: Record<string, unknown> = {}) {
  return {
    schemaVersion: 1,
    name: "Form gate",
    steps: [
      { id: "ask", type: "approval", config: { prompt: "Deploy?", form: FORM, ...config } },
      {
        id: "deploy",
        type: "transform",
        config: { value: "deploying under {{ steps.ask.output.data.form.ticket }}" },
      },
      { id: "declined", type: "transform", config: { value: "{{ steps.ask.output.data }}" } },
    ],
    edges: [
      { from: "ask", port: "approved", to: "deploy" },
      { from: "ask", port: "rejected", to: "declined" },
    ],
    output: {
      deploy: "{{ steps.deploy.output.data }}",
      form: "{{ steps.ask.output.data.form }}",
    },
  };
}

const decide = (approvalId: string, input: Record<string, unknown>) =>
  decideApproval({ ctx: e.ws.ctx("approver"), input: { approvalId, ...input }, via: "ui" });

async function refusal(p: Promise<unknown>): Promise<ValidationError> {
  const err = await p.catch((x: unknown) => x);
  expect(err).toBeInstanceOf(ValidationError);
  return err as ValidationError;
}

describe("approval forms", () => {
  it("refuses an invalid or incomplete form (naming the field), then a valid one flows into later steps", async () => {
    const wf = await e.workflow(formGate({ priority: "high", due: "2h" }));
    const runId = await e.start(wf);
    const a = await e.pendingApproval(runId);
    expect(a).toMatchObject({ form: FORM, priority: "high" });
    expect(a.dueAt!.getTime() - a.createdAt.getTime()).toBe(2 * 3600_000);
    // The run page (and GET /runs/{id}) shows the form to fill.
    const view = await getRun({ ctx: e.ws.ctx("approver"), input: { runId } });
    expect(view.pendingApprovals[0]).toMatchObject({ form: FORM, priority: "high" });

    const missing = await refusal(decide(a.id, { approve: true }));
    expect(missing.message).toMatch(/Field "ticket" is required \(Change ticket\)/);
    expect(missing.issues).toEqual([
      { path: ["form", "ticket"], message: 'Field "ticket" is required (Change ticket).' },
    ]);
    const invalid = await refusal(
      decide(a.id, { approve: true, form: { ticket: "OPS-1", risk: "medium", window: "soon" } }),
    );
    expect(invalid.issues.map((i) => i.path)).toEqual([
      ["form", "risk"],
      ["form", "window"],
    ]);
    expect(invalid.message).toMatch(/Field "risk" must be one of "low", "high"/);
    const unknown = await refusal(
      decide(a.id, { approve: true, form: { ticket: "x", tikcet: 1 } }),
    );
    expect(unknown.issues[0]).toMatchObject({ path: ["form", "tikcet"] });
    // Refused decisions leave the gate pending: nothing was recorded.
    expect(
      await e.db.db.select().from(approvalDecisions).where(eq(approvalDecisions.approvalId, a.id)),
    ).toEqual([]);

    await decide(a.id, { approve: true, form: { ticket: "OPS-7", window: 30 } });
    const run = await e.waitFor(runId, ["completed", "failed", "cancelled"]);
    expect(run.status, JSON.stringify(run.error)).toBe("completed");
    // Defaults are applied; later steps read steps.ask.output.data.form.
    expect(run.output).toEqual({
      deploy: "deploying under OPS-7",
      form: { ticket: "OPS-7", risk: "low", window: 30 },
    });
    const [decision] = await e.db.db
      .select()
      .from(approvalDecisions)
      .where(eq(approvalDecisions.approvalId, a.id));
    expect(decision!.formData).toEqual({ ticket: "OPS-7", risk: "low", window: 30 });
    const [audit] = await e.db.db
      .select()
      .from(auditEvents)
      .where(and(eq(auditEvents.targetId, a.id), eq(auditEvents.action, "approval.approved")));
    expect(audit!.data).toMatchObject({ form: { ticket: "OPS-7" } });
  });

  it("ignores the form when rejecting: no form needed, a bad one is not checked, output.data.form is null", async () => {
    const wf = await e.workflow({ ...formGate(), output: "{{ steps.declined.output.data }}" });
    const runId = await e.start(wf);
    const a = await e.pendingApproval(runId);
    await decide(a.id, { approve: false, reason: "not now", form: { window: "garbage" } });
    const run = await e.waitFor(runId, ["completed", "failed", "cancelled"]);
    expect(run.status, JSON.stringify(run.error)).toBe("completed");
    const declined = (await e.steps(runId)).find((s) => s.path === "declined")!;
    expect(declined.output).toMatchObject({
      data: { decision: "rejected", reason: "not now", form: null },
    });
    const [decision] = await e.db.db
      .select()
      .from(approvalDecisions)
      .where(eq(approvalDecisions.approvalId, a.id));
    expect(decision!.formData).toBeNull();
  });

  it("sorts the inbox by priority and due date, and opens one approval by id (the deep link)", async () => {
    const wf = (priority: string, due?: string) =>
      e.workflow({
        schemaVersion: 1,
        name: `Sort ${priority}`,
        steps: [
          {
            id: "ask",
            type: "approval",
            config: { prompt: `${priority} ${due ?? "-"}`, priority, ...(due ? { due } : {}) },
          },
        ],
      });
    const ids: Record<string, string> = {};
    for (const [p, due] of [
      ["low", "1h"],
      ["urgent", undefined],
      ["normal", "2030-01-01T09:00:00Z"],
      ["high", "30m"],
    ] as const) {
      ids[p] = (await e.pendingApproval(await e.start(await wf(p, due)))).id;
    }
    const mine = new Set(Object.values(ids));
    const list = async (sort: "priority" | "due" | "newest") =>
      (await listApprovals({ ctx: e.ws.ctx("approver"), input: { scope: "all", sort } }))
        .filter((a) => mine.has(a.id))
        .map((a) => a.priority);
    expect(await list("priority")).toEqual(["urgent", "high", "normal", "low"]);
    expect(await list("due")).toEqual(["high", "low", "normal", "urgent"]);
    expect(await list("newest")).toEqual(["high", "normal", "urgent", "low"]);
    const [one] = await listApprovals({
      ctx: e.ws.ctx("approver"),
      input: { approvalId: ids.high },
    });
    expect(one).toMatchObject({ id: ids.high, priority: "high", canDecide: true });
    expect(one!.dueAt).toBeInstanceOf(Date);
  });
});
