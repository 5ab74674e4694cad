import { and, eq } from "drizzle-orm";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { memberships } from "@/db/schema";
import { startRunHarness, type RunHarness } from "@/server/testing/run-harness";
import { decideApproval } from "../approvals/decide-approval";
import { getRun } from "./get-run";

let e: RunHarness;
beforeAll(async () => {
  e = await startRunHarness("rundecisions");
});
afterAll(async () => {
  await e?.close();
});

const gated = {
  schemaVersion: 1,
  name: "Gate",
  steps: [
    { id: "ask", type: "approval", config: { prompt: "Ship it?", allowInitiator: true } },
    { id: "ship", type: "transform", config: { value: "shipped" } },
  ],
  edges: [{ from: "ask", port: "approved", to: "ship" }],
};

describe("getRun: decisions in words", () => {
  it("names who approved (a member's display name, not an id), when and why", async () => {
    const runId = await e.start(await e.workflow(gated));
    const gate = await e.pendingApproval(runId);
    await decideApproval({
      ctx: e.ws.ctx("approver"),
      input: { approvalId: gate.id, approve: true, reason: "looks fine" },
      via: "ui",
    });
    await e.waitFor(runId, ["completed"]);
    const r = await getRun({ ctx: e.ws.ctx("viewer"), input: { runId } });
    expect(r.decisions).toHaveLength(1);
    const d = r.decisions[0]!;
    expect(d).toMatchObject({ kind: "approval", stepPath: "ask", status: "approved" });
    if (d.kind !== "approval") throw new Error("expected an approval");
    expect(d.decisions).toEqual([
      expect.objectContaining({
        decision: "approved",
        reason: "looks fine",
        byName: "Engine approver",
        at: expect.any(Date),
      }),
    ]);
    expect(JSON.stringify(r.decisions)).not.toContain(e.ws.members.approver);
  });

  it("shows no name for someone who left the workspace", async () => {
    const approver = await e.ws.addMember("approver");
    const runId = await e.start(await e.workflow(gated));
    const gate = await e.pendingApproval(runId);
    await decideApproval({
      ctx: { ...e.ws.ctx("approver"), actor: { type: "user", userId: approver } },
      input: { approvalId: gate.id, approve: true, reason: "ok" },
      via: "ui",
    });
    await e.waitFor(runId, ["completed"]);
    await e.db.db
      .delete(memberships)
      .where(and(eq(memberships.userId, approver), eq(memberships.workspaceId, e.ws.workspaceId)));
    const r = await getRun({ ctx: e.ws.ctx("viewer"), input: { runId } });
    const d = r.decisions[0]!;
    if (d.kind !== "approval") throw new Error("expected an approval");
    expect(d.decisions[0]).toMatchObject({ reason: "ok", byName: null });
  });
});
