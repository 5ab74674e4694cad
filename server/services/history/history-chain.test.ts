import { and, eq, sql } from "drizzle-orm";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { approvalDecisions, auditEvents, historyChain, proposals } from "@/db/schema";
import { testDriver } from "@/db/testing";
import { ForbiddenError, ValidationError } from "@/server/errors";
import { decideApproval } from "@/server/services/approvals/decide-approval";
import { recordAudit } from "@/server/services/audit/record-audit";
import { applyProposal } from "@/server/services/proposals/apply-proposal";
import { createProposal } from "@/server/services/proposals/create-proposal";
import { expireProposals } from "@/server/services/proposals/expire-proposals";
import { getProposal } from "@/server/services/proposals/get-proposal";
import { reviewProposal } from "@/server/services/proposals/review-proposal";
import { applyRetention } from "@/server/services/retention/apply-retention";
import { createWorkspaceFixture, type WorkspaceFixture } from "@/server/testing/harness";
import { startRunHarness, type RunHarness } from "@/server/testing/run-harness";
import { verifyHistory } from "./verify-history";

let e: RunHarness;
let other: WorkspaceFixture;
beforeAll(async () => {
  e = await startRunHarness("historychain");
  other = await createWorkspaceFixture(e.db.db, "Other");
});
afterAll(async () => {
  await e?.close();
});

const def = (value: unknown) => ({
  schemaVersion: 1,
  name: "Chained",
  constraints: { allowSelfModification: true },
  steps: [{ id: "shape", type: "transform", config: { value } }],
});

const gate = {
  schemaVersion: 1,
  name: "Gate",
  steps: [
    { id: "ask", type: "approval", config: { prompt: "Ship?" } },
    { id: "ship", type: "transform", config: { value: "shipped" } },
  ],
  edges: [{ from: "ask", port: "approved", to: "ship" }],
};

const verify = (fx: WorkspaceFixture = e.ws, input?: unknown) =>
  verifyHistory({ ctx: fx.ctx("admin"), input });

/** Changes a history row behind the application's back (the append-only triggers are bypassed). */
async function tamper(statement: ReturnType<typeof sql>) {
  await e.db.db.transaction(async (tx) => {
    await tx.execute(sql`set local session_replication_role = replica`);
    await tx.execute(statement);
  });
}

async function links(fx: WorkspaceFixture = e.ws) {
  return e.db.db
    .select()
    .from(historyChain)
    .where(eq(historyChain.workspaceId, fx.workspaceId))
    .orderBy(historyChain.seq);
}

/** A published workflow, a proposal reviewed and applied, and a decided approval gate. */
async function history() {
  const workflowId = await e.workflow(def(1));
  const created = await createProposal({
    ctx: e.ws.ctx("editor"),
    input: { workflowId, baseHash: "current", summary: "value 2", definition: def(2) },
  });
  const shown = await getProposal({
    ctx: e.ws.ctx("admin"),
    input: { proposalId: created.id },
  });
  await reviewProposal({
    ctx: e.ws.ctx("admin"),
    input: {
      proposalId: created.id,
      decision: "approve",
      notes: "ok",
      shownHash: shown.reviewedContentHash,
    },
  });
  await applyProposal({ ctx: e.ws.ctx("admin"), input: { proposalId: created.id } });
  const gated = await e.workflow(gate);
  const runId = await e.start(gated);
  const approval = await e.pendingApproval(runId);
  await decideApproval({
    ctx: e.ws.ctx("approver"),
    input: { approvalId: approval.id, approve: true, reason: "" },
    via: "ui",
  });
  expect((await e.waitFor(runId, ["completed", "failed"])).status).toBe("completed");
  return { workflowId, proposalId: created.id, runId, approvalId: approval.id };
}

let made: Awaited<ReturnType<typeof history>>;

describe("history chain", () => {
  it("chains versions, reviews, applies, approval decisions and audit rows in commit order", async () => {
    made = await history();
    const chain = await links();
    const kinds = new Set(chain.map((l) => l.kind));
    expect([...kinds].sort()).toEqual(
      ["approval_decision", "audit", "proposal_apply", "proposal_review", "version"].sort(),
    );
    chain.forEach((l, i) => expect(l.seq).toBe(i + 1));
    for (let i = 1; i < chain.length; i++) expect(chain[i]!.prevHash).toBe(chain[i - 1]!.hash);
    expect(chain.find((l) => l.kind === "proposal_apply")!.rowId).toBe(made.proposalId);
    const result = await verify();
    expect(result).toMatchObject({ ok: true, checked: chain.length, firstBroken: null });
    expect(result.head).toEqual({ seq: chain.length, hash: chain.at(-1)!.hash });
    // Another workspace has its own chain, untouched by these rows.
    expect(await links(other)).toEqual([]);
    expect((await verify(other)).ok).toBe(true);
  });

  it("is verified by admins only, and refuses a malformed anchor naming the field", async () => {
    await expect(verifyHistory({ ctx: e.ws.ctx("editor") })).rejects.toThrow(ForbiddenError);
    await expect(verifyHistory({ ctx: e.ws.ctx("viewer") })).rejects.toThrow(ForbiddenError);
    await expect(verify(e.ws, { anchor: { seq: 1, hash: "nope" } })).rejects.toThrow(
      ValidationError,
    );
  });

  it("drops the link of a rolled-back transaction, savepoints included", async () => {
    const before = (await links()).length;
    await expect(
      e.db.db.transaction(async (tx) => {
        await recordAudit(tx, e.ws.ctx("admin"), { action: "test.rolled_back" });
        throw new Error("rollback");
      }),
    ).rejects.toThrow("rollback");
    await e.db.db.transaction(async (tx) => {
      await tx
        .transaction(async (sp) => {
          await recordAudit(sp, e.ws.ctx("admin"), { action: "test.savepoint_rolled_back" });
          throw new Error("sp");
        })
        .catch(() => undefined);
      await recordAudit(tx, e.ws.ctx("admin"), { action: "test.kept" });
    });
    const after = await links();
    expect(after.length).toBe(before + 1);
    expect((await verify()).ok).toBe(true);
  });

  it("records what retention prunes in the chain, so verification still passes", async () => {
    const later = new Date(Date.now() + 400 * 86_400_000);
    const decisions = await e.db.db
      .select({ id: approvalDecisions.id })
      .from(approvalDecisions)
      .where(eq(approvalDecisions.approvalId, made.approvalId));
    expect(decisions).toHaveLength(1);
    await applyRetention(e.db.db, later, { runs: 30, steps: 30 });
    await expireProposals(e.db.db, later, { retentionDays: 30 });
    expect(await e.db.db.select().from(proposals).where(eq(proposals.id, made.proposalId))).toEqual(
      [],
    );
    const pruned = await e.db.db
      .select({ data: auditEvents.data })
      .from(auditEvents)
      .where(
        and(
          eq(auditEvents.workspaceId, e.ws.workspaceId),
          eq(auditEvents.action, "history.pruned"),
        ),
      );
    expect(pruned.map((p) => p.data.kind).sort()).toEqual([
      "approval_decision",
      "proposal_apply",
      "proposal_review",
    ]);
    expect(pruned.find((p) => p.data.kind === "approval_decision")!.data.ids).toEqual([
      decisions[0]!.id,
    ]);
    const result = await verify();
    expect(result).toMatchObject({ ok: true, firstBroken: null });
    expect(result.pruned).toBeGreaterThanOrEqual(3);
  });

  it("fails at exactly the audit row edited in the database", async () => {
    const chain = await links();
    const target = chain.find((l) => l.kind === "audit" && l.seq > 2)!;
    await tamper(
      sql`update audit_events set data = '{"forged": true}'::jsonb where id = ${Number(target.rowId)}`,
    );
    const result = await verify();
    expect(result.ok).toBe(false);
    expect(result.firstBroken).toMatchObject({
      seq: target.seq,
      kind: "audit",
      rowId: target.rowId,
      problem: "content_changed",
    });
    expect(result.firstBroken!.message).toMatch(/changed after it was recorded/);
  });
});

describe("history chain tampering (fresh workspaces)", () => {
  /** A workspace with its own history: a few audit rows and one published version. */
  async function fresh(label: string) {
    const fx = await createWorkspaceFixture(e.db.db, label);
    const workflowId = await e.workflow(def(label), fx);
    for (const action of ["test.a", "test.b", "test.c"])
      await e.db.db.transaction((tx) => recordAudit(tx, fx.ctx("owner"), { action }));
    return { fx, workflowId, chain: await links(fx) };
  }

  it("fails at exactly the version whose stored row was edited", async () => {
    const { fx, chain } = await fresh("Versions");
    const v = chain.find((l) => l.kind === "version")!;
    await tamper(sql`update workflow_versions set notes = 'rewritten' where id = ${v.rowId}`);
    expect((await verify(fx)).firstBroken).toMatchObject({
      seq: v.seq,
      kind: "version",
      rowId: v.rowId,
      problem: "content_changed",
    });
  });

  it("detects a deleted covered row, then the deleted link as a gap", async () => {
    const { fx, chain } = await fresh("Deleted");
    const victim = chain.filter((l) => l.kind === "audit").at(-2)!;
    await tamper(sql`delete from audit_events where id = ${Number(victim.rowId)}`);
    expect((await verify(fx)).firstBroken).toMatchObject({
      seq: victim.seq,
      rowId: victim.rowId,
      problem: "row_missing",
    });
    // Removing its link as well leaves a gap in the sequence right there.
    await tamper(
      sql`delete from history_chain where workspace_id = ${fx.workspaceId} and seq = ${victim.seq}`,
    );
    expect((await verify(fx)).firstBroken).toMatchObject({
      seq: victim.seq + 1,
      problem: "seq_gap",
    });
  });

  it("names an anchor from an earlier export that the chain no longer contains", async () => {
    const { fx, chain } = await fresh("Anchor");
    const at = chain[1]!;
    expect((await verify(fx, { anchor: { seq: at.seq, hash: at.hash } })).ok).toBe(true);
    const forged = `sha256:${"f".repeat(64)}`;
    expect((await verify(fx, { anchor: { seq: at.seq, hash: forged } })).firstBroken).toMatchObject(
      { seq: at.seq, problem: "anchor_mismatch" },
    );
    expect(
      (await verify(fx, { anchor: { seq: chain.length + 5, hash: forged } })).firstBroken,
    ).toMatchObject({ problem: "anchor_mismatch" });
  });

  it("detects links deleted at the end through the head", async () => {
    const { fx, chain } = await fresh("Tail");
    const last = chain.at(-1)!;
    await tamper(
      sql`delete from history_chain where workspace_id = ${fx.workspaceId} and seq = ${last.seq}`,
    );
    expect((await verify(fx)).firstBroken).toMatchObject({ problem: "head_mismatch" });
  });

  it("refuses UPDATE and DELETE on the chain itself", async () => {
    const { fx } = await fresh("Immutable");
    const refusal = await e.db.db
      .execute(sql`update history_chain set kind = 'audit' where workspace_id = ${fx.workspaceId}`)
      .then(() => "updated")
      .catch((err: Error & { cause?: Error }) => String(err.cause?.message ?? err.message));
    expect(refusal).toMatch(/append-only/);
  });
});

describe("concurrency", () => {
  it.runIf(testDriver() === "postgres")(
    "serialises concurrent appends to one workspace's chain: no gap, no fork",
    async () => {
      const fx = await createWorkspaceFixture(e.db.db, "Race");
      await Promise.all(
        Array.from({ length: 24 }, (_, i) =>
          e.db.db.transaction(async (tx) => {
            await recordAudit(tx, fx.ctx("owner"), { action: `race.${i}` });
            await recordAudit(tx, fx.ctx("owner"), { action: `race.${i}.second` });
          }),
        ),
      );
      const chain = await links(fx);
      expect(chain.map((l) => l.seq)).toEqual(Array.from({ length: 48 }, (_, i) => i + 1));
      expect(await verify(fx)).toMatchObject({ ok: true, checked: 48 });
    },
  );
});
