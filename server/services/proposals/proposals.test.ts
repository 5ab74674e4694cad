import { and, eq } from "drizzle-orm";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { auditEvents, outbox, proposals, workflowVersions, workspaces } from "@/db/schema";
import { createTestDb, type TestDb } from "@/db/testing";
import { EVENTS } from "@/inngest/events";
import { ForbiddenError, ValidationError } from "../../errors";
import { createWorkspaceFixture, makeCtx, type WorkspaceFixture } from "../../testing/harness";
import { createWorkflow } from "../workflows/create-workflow";
import { getWorkflow } from "../workflows/get-workflow";
import { publishWorkflow } from "../workflows/publish-workflow";
import { saveDraft } from "../workflows/save-draft";
import { applyProposal } from "./apply-proposal";
import { countProposals } from "./count-proposals";
import { createProposal } from "./create-proposal";
import { ProposalError } from "./errors";
import { expireProposals } from "./expire-proposals";
import { getProposal } from "./get-proposal";
import { listProposals } from "./list-proposals";
import { reviewProposal } from "./review-proposal";
import { rollbackProposal } from "./rollback-proposal";
import { setSelfModification } from "./set-self-modification";

let t: TestDb;
let ws: WorkspaceFixture;
beforeAll(async () => {
  t = await createTestDb("proposals");
  ws = await createWorkspaceFixture(t.db, "Prop");
});
afterAll(async () => {
  await t?.close();
});

function def(value: unknown, extra: Record<string, unknown> = {}) {
  return {
    schemaVersion: 1,
    name: "Proposable",
    constraints: { allowSelfModification: true },
    steps: [{ id: "shape", type: "transform", config: { value } }],
    ...extra,
  };
}

/** A workflow (created by the owner) whose published version accepts proposals. */
async function proposable(fx: WorkspaceFixture, definition: unknown = def(1)) {
  const w = await createWorkflow({ ctx: fx.ctx("owner"), input: { name: `P ${Math.random()}` } });
  await saveDraft({ ctx: fx.ctx("owner"), input: { workflowId: w.id, definition } });
  await publishWorkflow({ ctx: fx.ctx("owner"), input: { workflowId: w.id } });
  const got = await getWorkflow({ ctx: fx.ctx("owner"), input: { workflowId: w.id } });
  return { workflowId: w.id, hash: got.currentVersion!.hash, version: got.currentVersion!.version };
}

async function reason(p: Promise<unknown>): Promise<string> {
  try {
    await p;
  } catch (e) {
    if (e instanceof ProposalError) return e.reason;
    return (e as Error).constructor.name;
  }
  return "ok";
}

async function propose(
  fx: WorkspaceFixture,
  workflowId: string,
  value: unknown,
  role = "editor" as const,
) {
  return createProposal({
    ctx: fx.ctx(role),
    input: {
      workflowId,
      baseHash: "current",
      summary: `set value to ${JSON.stringify(value)}`,
      definition: def(value),
    },
  });
}

async function approve(
  fx: WorkspaceFixture,
  proposalId: string,
  role: "admin" | "owner" | "approver" = "admin",
) {
  const p = await getProposal({ ctx: fx.ctx(role), input: { proposalId } });
  return reviewProposal({
    ctx: fx.ctx(role),
    input: { proposalId, decision: "approve", notes: "fine", shownHash: p.reviewedContentHash },
  });
}

describe("creation", () => {
  it("is refused unless the published version allows self-modification; the admin toggle publishes", async () => {
    const { workflowId } = await proposable(ws, { ...def(1), constraints: {} });
    expect(
      await reason(
        createProposal({
          ctx: ws.ctx("editor"),
          input: { workflowId, baseHash: "current", summary: "x", definition: def(2) },
        }),
      ),
    ).toBe("SELF_MODIFICATION_DISABLED");
    await expect(
      setSelfModification({ ctx: ws.ctx("editor"), input: { workflowId, enabled: true } }),
    ).rejects.toThrow(/admin role/);
    const on = await setSelfModification({
      ctx: ws.ctx("admin"),
      input: { workflowId, enabled: true },
    });
    expect(on).toMatchObject({ version: "1.0.2", changed: true });
    const [v] = await t.db
      .select()
      .from(workflowVersions)
      .where(
        and(eq(workflowVersions.workflowId, workflowId), eq(workflowVersions.version, "1.0.2")),
      );
    expect(v).toMatchObject({ source: "publish" });
    expect(v!.notes).toMatch(/turned change proposals on/);
    const audits = await t.db
      .select()
      .from(auditEvents)
      .where(
        and(
          eq(auditEvents.targetId, workflowId),
          eq(auditEvents.action, "workflow.self_modification_enabled"),
        ),
      );
    expect(audits).toHaveLength(1);
    const created = await propose(ws, workflowId, 2);
    expect(created).toMatchObject({ status: "pending", created: true });
  });

  it("the toggle publishes from the version its confirmation named, else 409 naming the current one (issue #26.6)", async () => {
    const { workflowId } = await proposable(ws, { ...def(1), constraints: {} });
    const shown = (await getWorkflow({ ctx: ws.ctx("admin"), input: { workflowId } }))
      .currentVersion!;
    await saveDraft({
      ctx: ws.ctx("editor"),
      input: { workflowId, definition: { ...def(5), constraints: {} } },
    });
    await publishWorkflow({ ctx: ws.ctx("editor"), input: { workflowId } });
    const stale = setSelfModification({
      ctx: ws.ctx("admin"),
      input: { workflowId, enabled: true, expectedVersionId: shown.id },
    });
    await expect(stale).rejects.toMatchObject({ code: "CONFLICT" });
    await expect(stale).rejects.toThrow(/published meanwhile \(v1\.0\.2 is current now\)/);
    const now = (await getWorkflow({ ctx: ws.ctx("admin"), input: { workflowId } }))
      .currentVersion!;
    const on = await setSelfModification({
      ctx: ws.ctx("admin"),
      input: { workflowId, enabled: true, expectedVersionId: now.id },
    });
    expect(on).toMatchObject({ version: "1.0.3", changed: true });
  });

  it("from a full definition: stored content-addressed, audited, dry run requested, listed and readable", async () => {
    const { workflowId, hash } = await proposable(ws);
    const r = await createProposal({
      ctx: ws.ctx("editor"),
      input: {
        workflowId,
        baseHash: hash,
        summary: "double it",
        rationale: "because",
        definition: def(2),
      },
    });
    expect(r.status).toBe("pending");
    const detail = await getProposal({ ctx: ws.ctx("viewer"), input: { proposalId: r.id } });
    expect(detail).toMatchObject({
      workflowId,
      status: "pending",
      summary: "double it",
      rationale: "because",
      baseHash: hash,
      isStale: false,
      author: { type: "user", id: ws.members.editor, name: "Prop editor" },
      dryRun: { status: "pending" },
      appliedVersion: null,
    });
    expect(detail.proposed.definition).toMatchObject({ steps: [{ config: { value: 2 } }] });
    expect(detail.diff.steps.changed.map((s) => s.id)).toEqual(["shape"]);
    expect(detail.changeSummary.length).toBeGreaterThan(0);
    expect(detail.verdicts.every((v) => v.ok)).toBe(true);
    expect(detail.expiresAt.getTime() - detail.createdAt.getTime()).toBe(14 * 86_400_000);
    expect(detail.can.review).toBe(false); // a viewer
    const audit = await t.db.select().from(auditEvents).where(eq(auditEvents.targetId, r.id));
    expect(audit.map((a) => a.action)).toEqual(["proposal.created"]);
    const msgs = await t.db
      .select()
      .from(outbox)
      .where(eq(outbox.id, `dryrun_${r.id}_1`));
    expect(msgs).toHaveLength(1);
    const listed = await listProposals({
      ctx: ws.ctx("viewer"),
      input: { workflowId, status: ["pending"] },
    });
    expect(listed.items.map((i) => i.id)).toEqual([r.id]);
    expect(
      (await listProposals({ ctx: ws.ctx("viewer"), input: { workflowId, status: ["applied"] } }))
        .items,
    ).toEqual([]);
    // Another workspace sees nothing.
    const other = await createWorkspaceFixture(t.db, "PropOther");
    await expect(
      getProposal({ ctx: other.ctx("owner"), input: { proposalId: r.id } }),
    ).rejects.toThrow(/not found/);
    expect((await listProposals({ ctx: other.ctx("owner"), input: {} })).items).toEqual([]);
  });

  it("from an RFC 6902 patch; a failing op is named", async () => {
    const { workflowId } = await proposable(ws);
    const ok = await createProposal({
      ctx: ws.ctx("editor"),
      input: {
        baseHash: "current",
        workflowId,
        summary: "patch it",
        patch: [{ op: "replace", path: "/steps/0/config/value", value: 3 }],
      },
    });
    const p = await getProposal({ ctx: ws.ctx("viewer"), input: { proposalId: ok.id } });
    expect(p.proposed.definition).toMatchObject({ steps: [{ config: { value: 3 } }] });
    const bad = createProposal({
      ctx: ws.ctx("editor"),
      input: {
        baseHash: "current",
        workflowId,
        summary: "bad patch",
        patch: [
          { op: "replace", path: "/steps/0/config/value", value: 4 },
          { op: "replace", path: "/steps/7/config/url", value: "x" },
        ],
      },
    });
    await expect(bad).rejects.toMatchObject({
      reason: "INVALID_PATCH",
      message: expect.stringMatching(/operation 1/),
      details: { index: 1, issues: [{ path: ["patch", 1] }] },
    });
  });

  it("refuses invalid definitions with every issue, identical content, and two inputs at once", async () => {
    const { workflowId } = await proposable(ws);
    const invalid = createProposal({
      ctx: ws.ctx("editor"),
      input: {
        baseHash: "current",
        workflowId,
        summary: "broken",
        definition: {
          ...def(1),
          steps: [
            { id: "a", type: "transform" },
            { id: "a", type: "nope" },
          ],
        },
      },
    });
    await expect(invalid).rejects.toBeInstanceOf(ValidationError);
    await expect(propose(ws, workflowId, 1)).rejects.toThrow(/identical to the current version/);
    await expect(
      createProposal({
        ctx: ws.ctx("editor"),
        input: {
          baseHash: "current",
          workflowId,
          summary: "two",
          definition: def(2),
          patch: [{ op: "test", path: "/name", value: "x" }],
        },
      }),
    ).rejects.toThrow(/exactly one of definition, patch or intent/);
    await expect(propose(ws, workflowId, 2, "approver" as never)).rejects.toThrow(/editor role/);
  });

  it("STALE_BASE when the base hash is not the current published hash, with the three definitions", async () => {
    const { workflowId, hash } = await proposable(ws);
    await saveDraft({ ctx: ws.ctx("owner"), input: { workflowId, definition: def(9) } });
    await publishWorkflow({ ctx: ws.ctx("owner"), input: { workflowId } });
    const stale = createProposal({
      ctx: ws.ctx("editor"),
      input: { workflowId, baseHash: hash, summary: "late", definition: def(5) },
    });
    const e = (await stale.catch((x: unknown) => x)) as ProposalError;
    expect(e).toBeInstanceOf(ProposalError);
    expect(e.reason).toBe("STALE_BASE");
    expect(e.code).toBe("CONFLICT");
    expect(e.details).toMatchObject({
      baseHash: hash,
      base: { steps: [{ config: { value: 1 } }] },
      current: { steps: [{ config: { value: 9 } }] },
      proposed: { steps: [{ config: { value: 5 } }] },
    });
  });
});

describe("policies", () => {
  it("a forbidden step type blocks creation and, once forbidden later, apply (→ failed)", async () => {
    const fx = await createWorkspaceFixture(t.db, "Pol");
    const { workflowId } = await proposable(fx);
    const withHttp = {
      ...def(1),
      steps: [
        { id: "shape", type: "transform", config: { value: 1 } },
        { id: "call", type: "http", config: { url: "https://api.example.com/x" } },
      ],
    };
    const r = await createProposal({
      ctx: fx.ctx("editor"),
      input: { workflowId, baseHash: "current", summary: "add http", definition: withHttp },
    });
    await approve(fx, r.id);
    await t.db
      .update(workspaces)
      .set({ settings: { forbiddenStepTypes: ["http"] } })
      .where(eq(workspaces.id, fx.workspaceId));
    const blocked = createProposal({
      ctx: fx.ctx("editor"),
      input: { workflowId, baseHash: "current", summary: "again", definition: withHttp },
    });
    await expect(blocked).rejects.toMatchObject({
      reason: "POLICY_VIOLATION",
      code: "FORBIDDEN",
      details: { issues: [{ policy: "forbidden_step_types", code: "POLICY_VIOLATION" }] },
    });
    expect(await reason(applyProposal({ ctx: fx.ctx("owner"), input: { proposalId: r.id } }))).toBe(
      "POLICY_VIOLATION",
    );
    const [row] = await t.db.select().from(proposals).where(eq(proposals.id, r.id));
    expect(row).toMatchObject({ status: "failed" });
    expect(row!.statusReason).toMatch(/forbid|http/i);
  });

  it("script steps block while the workspace has them off", async () => {
    const fx = await createWorkspaceFixture(t.db, "Scr");
    const { workflowId } = await proposable(fx);
    const withScript = {
      ...def(1),
      steps: [
        { id: "shape", type: "transform", config: { value: 1 } },
        { id: "sh", type: "script", config: { command: "echo hi" } },
      ],
    };
    expect(
      await reason(
        createProposal({
          ctx: fx.ctx("editor"),
          input: { workflowId, baseHash: "current", summary: "script", definition: withScript },
        }),
      ),
    ).toBe("POLICY_VIOLATION");
    await t.db
      .update(workspaces)
      .set({ settings: { scriptStepsEnabled: true } })
      .where(eq(workspaces.id, fx.workspaceId));
    const r = await createProposal({
      ctx: fx.ctx("editor"),
      input: { workflowId, baseHash: "current", summary: "script", definition: withScript },
    });
    expect(r.risk).toBe("high");
  });
});

describe("review: separation of duties", () => {
  it("the proposer never approves their own proposal unless the workspace allows it; rejecting it withdraws it", async () => {
    const fx = await createWorkspaceFixture(t.db, "Sod");
    const { workflowId } = await proposable(fx);
    const mine = await propose(fx, workflowId, 2, "admin" as never);
    const shown = (await getProposal({ ctx: fx.ctx("admin"), input: { proposalId: mine.id } }))
      .reviewedContentHash;
    expect(
      await reason(
        reviewProposal({
          ctx: fx.ctx("admin"),
          input: { proposalId: mine.id, decision: "approve", shownHash: shown },
        }),
      ),
    ).toBe("SELF_REVIEW");
    // Through an API token of the same person: still the proposer.
    const { createApiToken } = await import("../api-tokens/create-api-token");
    const tok = await createApiToken({ ctx: fx.ctx("admin"), input: { name: "t", role: "admin" } });
    const tokenCtx = makeCtx(
      t.db,
      { type: "token", tokenId: tok.id, userId: fx.members.admin },
      { id: fx.workspaceId, role: "admin" },
    );
    expect(
      await reason(
        reviewProposal({
          ctx: tokenCtx,
          input: { proposalId: mine.id, decision: "approve", shownHash: shown },
        }),
      ),
    ).toBe("SELF_REVIEW");
    await t.db
      .update(workspaces)
      .set({ settings: { allowSelfApproval: true } })
      .where(eq(workspaces.id, fx.workspaceId));
    expect(
      await reviewProposal({
        ctx: fx.ctx("admin"),
        input: { proposalId: mine.id, decision: "approve", shownHash: shown },
      }),
    ).toEqual({ status: "approved" });
    await t.db.update(workspaces).set({ settings: {} }).where(eq(workspaces.id, fx.workspaceId));
    const other = await propose(fx, workflowId, 3, "admin" as never);
    const shown2 = (await getProposal({ ctx: fx.ctx("admin"), input: { proposalId: other.id } }))
      .reviewedContentHash;
    expect(
      await reviewProposal({
        ctx: fx.ctx("admin"),
        input: { proposalId: other.id, decision: "reject", notes: "withdrawn", shownHash: shown2 },
      }),
    ).toEqual({ status: "rejected" });
  });

  it("needs approver+, the exact shown hash, and decides once", async () => {
    const fx = await createWorkspaceFixture(t.db, "Rev");
    const { workflowId } = await proposable(fx);
    const r = await propose(fx, workflowId, 2);
    const shown = (await getProposal({ ctx: fx.ctx("approver"), input: { proposalId: r.id } }))
      .reviewedContentHash;
    await expect(
      reviewProposal({
        ctx: fx.ctx("viewer"),
        input: { proposalId: r.id, decision: "approve", shownHash: shown },
      }),
    ).rejects.toBeInstanceOf(ForbiddenError);
    expect(
      await reason(
        reviewProposal({
          ctx: fx.ctx("approver"),
          input: { proposalId: r.id, decision: "approve", shownHash: "sha256:nope" },
        }),
      ),
    ).toBe("SHOWN_CONTENT_CHANGED");
    const both = await Promise.allSettled([
      reviewProposal({
        ctx: fx.ctx("approver"),
        input: { proposalId: r.id, decision: "approve", shownHash: shown },
      }),
      reviewProposal({
        ctx: fx.ctx("owner"),
        input: { proposalId: r.id, decision: "reject", shownHash: shown },
      }),
    ]);
    expect(both.filter((b) => b.status === "fulfilled")).toHaveLength(1);
    const detail = await getProposal({ ctx: fx.ctx("viewer"), input: { proposalId: r.id } });
    expect(detail.reviews).toHaveLength(1);
    expect(detail.reviews[0]!.shownHash).toBe(shown);
  });

  it("a change loosening constraints needs a reviewer ranked above the proposer", async () => {
    const fx = await createWorkspaceFixture(t.db, "Senior");
    const { workflowId } = await proposable(fx);
    const loosened = { ...def(1), constraints: { allowSelfModification: true, maxSteps: 200 } };
    const r = await createProposal({
      ctx: fx.ctx("editor"),
      input: { workflowId, baseHash: "current", summary: "more steps", definition: loosened },
    });
    const detail = await getProposal({ ctx: fx.ctx("approver"), input: { proposalId: r.id } });
    expect(detail.needsSeniorReviewer).toBe(true);
    const shown = detail.reviewedContentHash;
    const otherEditor = makeCtx(
      t.db,
      { type: "user", userId: await fx.addMember("editor") },
      { id: fx.workspaceId, role: "editor" },
    );
    for (const ctx of [fx.ctx("approver"), otherEditor])
      expect(
        await reason(
          reviewProposal({
            ctx,
            input: { proposalId: r.id, decision: "approve", shownHash: shown },
          }),
        ),
      ).toBe("SENIOR_REVIEWER_REQUIRED");
    expect((await countProposals({ ctx: fx.ctx("approver") })).pendingReview).toBe(0);
    expect((await countProposals({ ctx: fx.ctx("admin") })).pendingReview).toBe(1);
    await reviewProposal({
      ctx: fx.ctx("admin"),
      input: { proposalId: r.id, decision: "approve", shownHash: shown },
    });
  });
});

describe("apply", () => {
  it("writes a proposal_apply version, resets the draft, supersedes siblings, audits, emits proposal.applied; rollback restores the base", async () => {
    const fx = await createWorkspaceFixture(t.db, "Apply");
    const { workflowId, hash } = await proposable(fx);
    const a = await propose(fx, workflowId, 2);
    const b = await propose(fx, workflowId, 3);
    expect(await reason(applyProposal({ ctx: fx.ctx("owner"), input: { proposalId: a.id } }))).toBe(
      "INVALID_STATUS",
    );
    await approve(fx, a.id);
    // An editor who did not create the workflow may not apply.
    const editor2 = makeCtx(
      t.db,
      { type: "user", userId: await fx.addMember("editor") },
      { id: fx.workspaceId, role: "editor" },
    );
    await expect(applyProposal({ ctx: editor2, input: { proposalId: a.id } })).rejects.toThrow(
      /workflow's creator/,
    );
    const applied = await applyProposal({
      ctx: fx.ctx("admin"),
      input: { proposalId: a.id, bump: "minor" },
    });
    expect(applied.version).toBe("1.1.0");
    const wf = await getWorkflow({ ctx: fx.ctx("viewer"), input: { workflowId } });
    expect(wf.currentVersion?.version).toBe("1.1.0");
    expect(wf.hasDraftChanges).toBe(false);
    const [ver] = await t.db
      .select()
      .from(workflowVersions)
      .where(eq(workflowVersions.id, applied.versionId));
    expect(ver).toMatchObject({ source: "proposal_apply" });
    expect(ver!.notes).toContain(a.id);
    const detail = await getProposal({ ctx: fx.ctx("viewer"), input: { proposalId: a.id } });
    expect(detail).toMatchObject({
      status: "applied",
      appliedVersion: { id: applied.versionId, version: "1.1.0" },
    });
    expect((await getProposal({ ctx: fx.ctx("viewer"), input: { proposalId: b.id } })).status).toBe(
      "superseded",
    );
    const events = await t.db
      .select()
      .from(outbox)
      .where(eq(outbox.id, `ev:${fx.workspaceId}:sys_${a.id}`));
    expect(events[0]).toMatchObject({ name: "proposal.applied", topic: "event" });
    const audits = await t.db.select().from(auditEvents).where(eq(auditEvents.targetId, a.id));
    expect(audits.map((x) => x.action).sort()).toEqual([
      "proposal.applied",
      "proposal.approved",
      "proposal.created",
    ]);

    const rb = await rollbackProposal({ ctx: fx.ctx("editor"), input: { proposalId: a.id } });
    expect(rb.version).toBe("1.1.1");
    const after = await getWorkflow({ ctx: fx.ctx("viewer"), input: { workflowId } });
    expect(after.currentVersion?.hash).toBe(hash);
    const rbAudit = await t.db
      .select()
      .from(auditEvents)
      .where(and(eq(auditEvents.targetId, a.id), eq(auditEvents.action, "proposal.rolled_back")));
    expect(rbAudit[0]!.data).toMatchObject({ versionId: rb.versionId });
    // Again: the base is live already, so 200-style no-op, no version and no second audit row.
    expect(await rollbackProposal({ ctx: fx.ctx("editor"), input: { proposalId: a.id } })).toEqual({
      alreadyAtVersion: true,
      versionId: rb.versionId,
      version: "1.1.1",
    });
    expect(
      await t.db
        .select()
        .from(auditEvents)
        .where(and(eq(auditEvents.targetId, a.id), eq(auditEvents.action, "proposal.rolled_back"))),
    ).toHaveLength(1);
    expect(
      await reason(rollbackProposal({ ctx: fx.ctx("editor"), input: { proposalId: b.id } })),
    ).toBe("INVALID_STATUS");
  });

  it("the workflow's creator with editor may apply; a base moved by a publish refuses with STALE_BASE", async () => {
    const fx = await createWorkspaceFixture(t.db, "Creator");
    const w = await createWorkflow({ ctx: fx.ctx("editor"), input: { name: "Mine" } });
    await saveDraft({ ctx: fx.ctx("editor"), input: { workflowId: w.id, definition: def(1) } });
    await publishWorkflow({ ctx: fx.ctx("editor"), input: { workflowId: w.id } });
    const first = await propose(fx, w.id, 2);
    await approve(fx, first.id);
    expect(
      (await applyProposal({ ctx: fx.ctx("editor"), input: { proposalId: first.id } })).version,
    ).toBe("1.0.2");
    // Applied: the current version is its own, not its base — that is not a stale base.
    expect(
      await getProposal({ ctx: fx.ctx("viewer"), input: { proposalId: first.id } }),
    ).toMatchObject({ status: "applied", isStale: false, can: { apply: false } });
    const second = await propose(fx, w.id, 7);
    await approve(fx, second.id);
    await saveDraft({ ctx: fx.ctx("editor"), input: { workflowId: w.id, definition: def(8) } });
    await publishWorkflow({ ctx: fx.ctx("editor"), input: { workflowId: w.id } });
    const e = await applyProposal({
      ctx: fx.ctx("editor"),
      input: { proposalId: second.id },
    }).catch((x: ProposalError) => x);
    expect(e).toMatchObject({
      reason: "STALE_BASE",
      details: { current: { steps: [{ config: { value: 8 } }] } },
    });
    const detail = await getProposal({ ctx: fx.ctx("viewer"), input: { proposalId: second.id } });
    expect(detail).toMatchObject({ status: "approved", isStale: true });
  });

  it("a new published version requests the open proposals' dry runs again", async () => {
    const fx = await createWorkspaceFixture(t.db, "Rebase");
    const { workflowId } = await proposable(fx);
    const open = await propose(fx, workflowId, 5);
    const requestOf = async () => {
      const [row] = await t.db
        .select({ request: proposals.dryRunRequest, status: proposals.dryRunStatus })
        .from(proposals)
        .where(eq(proposals.id, open.id));
      return row!;
    };
    expect((await requestOf()).request).toBe(1);
    await saveDraft({ ctx: fx.ctx("owner"), input: { workflowId, definition: def(9) } });
    await publishWorkflow({ ctx: fx.ctx("owner"), input: { workflowId } });
    expect(await requestOf()).toEqual({ request: 2, status: "pending" });
    const messages = await t.db
      .select({ payload: outbox.payload })
      .from(outbox)
      .where(eq(outbox.name, EVENTS.proposalDryRunRequested));
    expect(messages.map((m) => m.payload)).toContainEqual(
      expect.objectContaining({ proposalId: open.id, request: 2 }),
    );
  });

  it("10 concurrent applies on one base: exactly one applied, the rest superseded or stale", async () => {
    const fx = await createWorkspaceFixture(t.db, "Race");
    const { workflowId } = await proposable(fx);
    const ids: string[] = [];
    for (let i = 0; i < 10; i++) {
      const r = await propose(fx, workflowId, 100 + i);
      await approve(fx, r.id);
      ids.push(r.id);
    }
    const results = await Promise.allSettled(
      ids.map((proposalId) => applyProposal({ ctx: fx.ctx("owner"), input: { proposalId } })),
    );
    const ok = results.filter((r) => r.status === "fulfilled");
    expect(ok).toHaveLength(1);
    for (const r of results)
      if (r.status === "rejected")
        expect(["INVALID_STATUS", "STALE_BASE"]).toContain((r.reason as ProposalError).reason);
    const rows = await t.db.select().from(proposals).where(eq(proposals.workflowId, workflowId));
    expect(rows.filter((r) => r.status === "applied")).toHaveLength(1);
    expect(rows.filter((r) => r.status === "superseded")).toHaveLength(9);
    const versions = await t.db
      .select()
      .from(workflowVersions)
      .where(eq(workflowVersions.workflowId, workflowId));
    expect(versions.filter((v) => v.source === "proposal_apply")).toHaveLength(1);
    // The same proposal applied twice at once also decides once.
    const again = await Promise.allSettled(
      [0, 1, 2].map(() => applyProposal({ ctx: fx.ctx("owner"), input: { proposalId: ids[0]! } })),
    );
    expect(again.filter((r) => r.status === "fulfilled").length).toBeLessThanOrEqual(1);
  });
});

describe("expiry", () => {
  it("expires open proposals past expiresAt (review and apply answer EXPIRED before that runs) and deletes old closed ones", async () => {
    const fx = await createWorkspaceFixture(t.db, "Exp");
    const { workflowId } = await proposable(fx);
    const pending = await propose(fx, workflowId, 2);
    const approved = await propose(fx, workflowId, 3);
    await approve(fx, approved.id);
    const later = new Date(Date.now() + 15 * 86_400_000);
    const lateCtx = { ...fx.ctx("owner"), now: () => later };
    expect(await reason(applyProposal({ ctx: lateCtx, input: { proposalId: approved.id } }))).toBe(
      "EXPIRED",
    );
    const shown = (await getProposal({ ctx: fx.ctx("admin"), input: { proposalId: pending.id } }))
      .reviewedContentHash;
    expect(
      await reason(
        reviewProposal({
          ctx: { ...fx.ctx("admin"), now: () => later },
          input: { proposalId: pending.id, decision: "approve", shownHash: shown },
        }),
      ),
    ).toBe("EXPIRED");
    const r = await expireProposals(t.db, later);
    expect(r.expired).toBeGreaterThanOrEqual(2);
    const rows = await t.db.select().from(proposals).where(eq(proposals.workflowId, workflowId));
    expect(rows.map((x) => x.status)).toEqual(["expired", "expired"]);
    const gone = await expireProposals(t.db, new Date(later.getTime() + 366 * 86_400_000));
    expect(gone.deleted).toBeGreaterThanOrEqual(2);
    expect(await t.db.select().from(proposals).where(eq(proposals.workflowId, workflowId))).toEqual(
      [],
    );
  });
});
