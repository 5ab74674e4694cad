import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { decideApproval } from "@/server/services/approvals/decide-approval";
import { getRun } from "@/server/services/runs/get-run";
import { startRunHarness, type RunHarness } from "@/server/testing/run-harness";

let e: RunHarness;
beforeAll(async () => {
  e = await startRunHarness("run-decision-rights");
});
afterAll(async () => {
  await e?.close();
});

describe("getRun: who may decide a pending gate", () => {
  it("says canDecide for listed approvers and why not for everyone else", async () => {
    const wf = await e.workflow({
      schemaVersion: 1,
      name: "Rights",
      steps: [
        {
          id: "ask",
          type: "approval",
          config: { prompt: "Go?", quorum: 2, approvers: { roles: ["approver", "admin"] } },
        },
        { id: "go", type: "transform", config: { value: "went" } },
      ],
      edges: [{ from: "ask", port: "approved", to: "go" }],
    });
    // Started by the editor (the initiator).
    const runId = await e.start(wf);
    const a = await e.pendingApproval(runId);
    const view = async (role: "viewer" | "editor" | "approver" | "admin" | "owner") =>
      (await getRun({ ctx: e.ws.ctx(role), input: { runId } })).pendingApprovals.find(
        (p) => p.id === a.id,
      )!;

    expect(await view("approver")).toMatchObject({ canDecide: true, whyNot: null });
    expect(await view("admin")).toMatchObject({ canDecide: true, whyNot: null });
    expect((await view("viewer")).canDecide).toBe(false);
    expect((await view("viewer")).whyNot).toMatch(/approver role/);
    expect((await view("editor")).whyNot).toMatch(/You started this run/);
    expect((await view("owner")).whyNot).toMatch(/decided only by roles approver, admin/);

    // After one of two needed decisions, that approver is told they already decided.
    await decideApproval({
      ctx: e.ws.ctx("approver"),
      input: { approvalId: a.id, approve: true },
      via: "ui",
    });
    expect(await view("approver")).toMatchObject({
      canDecide: false,
      whyNot: "You already decided this gate",
    });
    expect((await view("admin")).canDecide).toBe(true);
  });

  it("refuses the initiator unless the gate allows it", async () => {
    const wf = await e.workflow({
      schemaVersion: 1,
      name: "Self",
      steps: [{ id: "ask", type: "approval", config: { prompt: "Self?" } }],
    });
    const runId = await e.start(wf);
    await e.waitFor(runId, ["waiting"]);
    const got = await e.h.until(async () => {
      const r = await getRun({ ctx: e.ws.ctx("editor"), input: { runId } });
      return r.pendingApprovals[0];
    }, "pending approval in view");
    expect(got.canDecide).toBe(false);
    expect(got.whyNot).toMatch(/You started this run/);
    // Flagged so the run page explains the rule and links to the setting (initiator-rule.ts).
    expect(got.initiatorRule).toBe(true);
    const other = (await getRun({ ctx: e.ws.ctx("approver"), input: { runId } }))
      .pendingApprovals[0]!;
    expect(other).toMatchObject({ canDecide: true, initiatorRule: false });
  });
});
