import { and, eq } from "drizzle-orm";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { approvalDecisions, approvals, auditEvents } from "@/db/schema";
import {
  ConflictError,
  ForbiddenError,
  PreconditionFailedError,
  ValidationError,
} from "@/server/errors";
import { decideApproval } from "@/server/services/approvals/decide-approval";
import { listApprovals } from "@/server/services/approvals/list-approvals";
import { getRun } from "@/server/services/runs/get-run";
import { startRunHarness, type RunHarness } from "@/server/testing/run-harness";

let e: RunHarness;
beforeAll(async () => {
  e = await startRunHarness("approvals");
});
afterAll(async () => {
  await e?.close();
});

function gate(
  config: Record<string, unknown> = {},
  withRejectedEdge = false,
  constraints: Record<string, unknown> = {},
) {
  return {
    schemaVersion: 1,
    name: "Gate",
    constraints,
    inputs: { version: { type: "string", default: "1.2.3" } },
    steps: [
      {
        id: "ask",
        type: "approval",
        config: {
          prompt: "Ship {{ input.version }}?",
          items: ["release {{ input.version }}"],
          ...config,
        },
      },
      { id: "ship", type: "transform", config: { value: "shipped {{ input.version }}" } },
      ...(withRejectedEdge
        ? [{ id: "declined", type: "transform", config: { value: "declined" } }]
        : []),
    ],
    edges: [
      { from: "ask", port: "approved", to: "ship" },
      ...(withRejectedEdge ? [{ from: "ask", port: "rejected", to: "declined" }] : []),
    ],
  };
}

describe("approval gates", () => {
  it("waits, shows the gate in the inbox, resumes on approval, and audits what was shown", async () => {
    const wf = await e.workflow(gate());
    const runId = await e.start(wf);
    const a = await e.pendingApproval(runId);
    expect(a.prompt).toBe("Ship 1.2.3?");
    expect(a.items).toEqual(["release 1.2.3"]);
    await e.waitFor(runId, ["waiting"]);
    const inbox = await listApprovals({ ctx: e.ws.ctx("approver"), input: { scope: "mine" } });
    expect(inbox.map((i) => i.id)).toContain(a.id);
    // Viewers see nothing to decide; the run page gives approvers a resume token.
    expect(await listApprovals({ ctx: e.ws.ctx("viewer"), input: { scope: "mine" } })).toEqual([]);
    const view = await getRun({ ctx: e.ws.ctx("approver"), input: { runId } });
    expect(view.pendingApprovals[0]!.resumeToken).toMatch(/^wrf_rt_/);
    expect(
      (await getRun({ ctx: e.ws.ctx("viewer"), input: { runId } })).pendingApprovals[0]!
        .resumeToken,
    ).toBeNull();

    const decided = await decideApproval({
      ctx: e.ws.ctx("approver"),
      input: { approvalId: a.id, approve: true, reason: "LGTM" },
      via: "ui",
    });
    expect(decided.status).toBe("approved");
    const run = await e.waitFor(runId, ["completed", "failed", "cancelled"]);
    expect(run.status).toBe("completed");
    const steps = Object.fromEntries((await e.steps(runId)).map((s) => [s.path, s]));
    expect(steps.ask!.port).toBe("approved");
    expect(steps.ship!.output).toMatchObject({ data: "shipped 1.2.3" });
    const [audit] = await e.db.db
      .select()
      .from(auditEvents)
      .where(and(eq(auditEvents.targetId, a.id), eq(auditEvents.action, "approval.approved")));
    expect(audit!.data).toMatchObject({ reason: "LGTM", shownHash: a.shownHash, via: "ui" });
  });

  it("cancels the run when rejected without a rejected edge, and follows the edge when there is one", async () => {
    const plain = await e.workflow(gate());
    const r1 = await e.start(plain);
    const a1 = await e.pendingApproval(r1);
    await expect(
      decideApproval({
        ctx: e.ws.ctx("approver"),
        input: { approvalId: a1.id, approve: false },
        via: "ui",
      }),
    ).rejects.toBeInstanceOf(ValidationError);
    await decideApproval({
      ctx: e.ws.ctx("approver"),
      input: { approvalId: a1.id, approve: false, reason: "not today" },
      via: "ui",
    });
    const run1 = await e.waitFor(r1, ["completed", "failed", "cancelled"]);
    expect(run1.status).toBe("cancelled");
    expect(run1.error).toMatchObject({ code: "approval_rejected" });

    const branched = await e.workflow(gate({}, true));
    const r2 = await e.start(branched);
    const a2 = await e.pendingApproval(r2);
    await decideApproval({
      ctx: e.ws.ctx("admin"),
      input: { approvalId: a2.id, approve: false, reason: "no" },
      via: "ui",
    });
    const run2 = await e.waitFor(r2, ["completed", "failed", "cancelled"]);
    expect(run2.status).toBe("completed");
    const steps = Object.fromEntries((await e.steps(r2)).map((s) => [s.path, s.status]));
    expect(steps).toMatchObject({ ask: "completed", ship: "skipped", declined: "completed" });
  });

  it("decides once under a double click, refuses the initiator and unlisted users, and needs a quorum of distinct approvers", async () => {
    const wf = await e.workflow(gate({ quorum: 2, approvers: { roles: ["approver", "admin"] } }));
    // The editor starts the run: as initiator they may not approve, and editors are not listed anyway.
    const runId = await e.start(wf);
    const a = await e.pendingApproval(runId);
    await expect(
      decideApproval({
        ctx: e.ws.ctx("editor"),
        input: { approvalId: a.id, approve: true },
        via: "ui",
      }),
    ).rejects.toBeInstanceOf(ForbiddenError);
    await expect(
      decideApproval({
        ctx: e.ws.ctx("owner"),
        input: { approvalId: a.id, approve: true },
        via: "ui",
      }),
    ).rejects.toThrow(/decided only by roles approver, admin/);

    // Two concurrent clicks by the same approver count once.
    const clicks = await Promise.allSettled(
      [1, 2].map(() =>
        decideApproval({
          ctx: e.ws.ctx("approver"),
          input: { approvalId: a.id, approve: true },
          via: "ui",
        }),
      ),
    );
    expect(clicks.filter((c) => c.status === "fulfilled")).toHaveLength(1);
    const refused = clicks.find((c) => c.status === "rejected") as PromiseRejectedResult;
    expect(refused.reason).toBeInstanceOf(ConflictError);
    expect((await e.db.db.select().from(approvals).where(eq(approvals.id, a.id)))[0]!.status).toBe(
      "pending",
    );

    const final = await decideApproval({
      ctx: e.ws.ctx("admin"),
      input: { approvalId: a.id, approve: true },
      via: "ui",
    });
    expect(final).toMatchObject({ status: "approved", approvals: 2, quorum: 2 });
    await expect(
      decideApproval({
        ctx: e.ws.ctx("admin"),
        input: { approvalId: a.id, approve: false, reason: "late" },
        via: "ui",
      }),
    ).rejects.toBeInstanceOf(PreconditionFailedError);
    expect(
      await e.db.db.select().from(approvalDecisions).where(eq(approvalDecisions.approvalId, a.id)),
    ).toHaveLength(2);
    expect((await e.waitFor(runId, ["completed", "failed", "cancelled"])).status).toBe("completed");
  });

  it("checks resume tokens in constant time and refuses a wrong or missing one on the API path", async () => {
    const wf = await e.workflow(gate());
    const runId = await e.start(wf);
    const a = await e.pendingApproval(runId);
    const { pendingApprovals } = await getRun({ ctx: e.ws.ctx("approver"), input: { runId } });
    const token = pendingApprovals[0]!.resumeToken!;
    await expect(
      decideApproval({
        ctx: e.ws.ctx("approver"),
        input: { approvalId: a.id, approve: true },
        via: "api",
      }),
    ).rejects.toBeInstanceOf(ValidationError);
    const tampered = token.slice(0, -2) + (token.endsWith("AA") ? "BB" : "AA");
    await expect(
      decideApproval({
        ctx: e.ws.ctx("approver"),
        input: { approvalId: a.id, approve: true, resumeToken: tampered },
        via: "api",
      }),
    ).rejects.toThrow(/resume token does not match/);
    const ok = await decideApproval({
      ctx: e.ws.ctx("approver"),
      input: { approvalId: a.id, approve: true, resumeToken: token },
      via: "api",
    });
    expect(ok.status).toBe("approved");
    // Single use: the gate is decided, the token is spent.
    await expect(
      decideApproval({
        ctx: e.ws.ctx("admin"),
        input: { approvalId: a.id, approve: true, resumeToken: token },
        via: "api",
      }),
    ).rejects.toBeInstanceOf(PreconditionFailedError);
    expect((await e.waitFor(runId, ["completed", "failed"])).status).toBe("completed");
  });

  it("applies onTimeout when the gate expires, recorded as approval_timeout", async () => {
    const rejecting = await e.workflow(gate({ timeout: "30m" }));
    const r1 = await e.start(rejecting);
    await e.pendingApproval(r1);
    await e.waitFor(r1, ["waiting"]);
    e.h.clock.advance(31 * 60_000);
    const run1 = await e.waitFor(r1, ["completed", "failed", "cancelled"]);
    expect(run1.status).toBe("cancelled");
    // At run level too: the gate expired, nobody rejected it.
    expect(run1.error).toMatchObject({
      code: "approval_timeout",
      message: expect.stringContaining("expired without a decision"),
    });
    const [a1] = await e.db.db.select().from(approvals).where(eq(approvals.runId, r1));
    expect(a1).toMatchObject({ status: "expired", decisionReason: "approval_timeout" });

    // The executor clock is now 31 minutes ahead of real time: use a longer timeout here.
    const approving = await e.workflow(
      gate({ timeout: "2h", onTimeout: "approve" }, false, { timeoutMs: 3 * 3600_000 }),
    );
    const r2 = await e.start(approving);
    await e.pendingApproval(r2);
    await e.waitFor(r2, ["waiting"]);
    e.h.clock.advance(2 * 3600_000);
    const run2 = await e.waitFor(r2, ["completed", "failed", "cancelled"]);
    expect(run2.status).toBe("completed");
  });

  it("times the run out when its deadline comes before the gate's timeout", async () => {
    const wf = await e.workflow(gate({ timeout: "7d" }, false, { timeoutMs: 3_600_000 }));
    const runId = await e.start(wf);
    await e.pendingApproval(runId);
    await e.waitFor(runId, ["waiting"]);
    e.h.clock.advance(3_600_000 + 60_000);
    const run = await e.waitFor(runId, ["completed", "failed", "cancelled", "timed_out"]);
    expect(run.status).toBe("timed_out");
    const [a] = await e.db.db.select().from(approvals).where(eq(approvals.runId, runId));
    expect(["expired", "cancelled"]).toContain(a!.status);
  });
});
