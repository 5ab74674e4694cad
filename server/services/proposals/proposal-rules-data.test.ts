import { eq } from "drizzle-orm";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { proposals } from "@/db/schema";
import { createTestDb, type TestDb } from "@/db/testing";
import { RULE_PRESETS, type ProposalRule } from "@/lib/schemas/proposal-rules";
import { ForbiddenError, ValidationError } from "../../errors";
import { createWorkspaceFixture, type WorkspaceFixture } from "../../testing/harness";
import { createWorkflow } from "../workflows/create-workflow";
import { publishWorkflow } from "../workflows/publish-workflow";
import { saveDraft } from "../workflows/save-draft";
import { applyProposal } from "./apply-proposal";
import { createProposal } from "./create-proposal";
import { ProposalError } from "./errors";
import { getProposal } from "./get-proposal";
import { getProposalRules } from "./get-proposal-rules";
import { previewProposalRules } from "./preview-proposal-rules";
import { reviewProposal } from "./review-proposal";
import { updateProposalRules } from "./update-proposal-rules";

let t: TestDb;
let ws: WorkspaceFixture;
let other: WorkspaceFixture;
beforeAll(async () => {
  t = await createTestDb("proposalrules");
  ws = await createWorkspaceFixture(t.db, "Rules");
  other = await createWorkspaceFixture(t.db, "Unruled");
});
afterAll(async () => {
  await t?.close();
});

/*  base:  ask ──approved──▶ call (api.known.com)  */
const base = {
  schemaVersion: 1,
  name: "Ruled",
  constraints: { allowSelfModification: true },
  steps: [
    { id: "ask", type: "approval", config: { prompt: "Go?" } },
    { id: "call", type: "http", config: { url: "https://api.known.com/x" } },
  ],
  edges: [{ from: "ask", port: "approved", to: "call" }],
};
/** The base with one more http step calling `host`. */
const withHost = (host: string) => ({
  ...base,
  steps: [...base.steps, { id: "post", type: "http", config: { url: `https://${host}/y` } }],
  edges: [...base.edges, { from: "call", to: "post" }],
});
/** The gate removed. */
const gateless = { ...base, steps: [base.steps[1]!], edges: [] };

async function workflow(fx: WorkspaceFixture) {
  const w = await createWorkflow({ ctx: fx.ctx("owner"), input: { name: `R ${Math.random()}` } });
  await saveDraft({ ctx: fx.ctx("owner"), input: { workflowId: w.id, definition: base } });
  await publishWorkflow({ ctx: fx.ctx("owner"), input: { workflowId: w.id } });
  return w.id;
}

const propose = (fx: WorkspaceFixture, workflowId: string, definition: unknown) =>
  createProposal({
    ctx: fx.ctx("editor"),
    input: { workflowId, baseHash: "current", summary: "change", definition },
  });

async function review(fx: WorkspaceFixture, proposalId: string, role: "approver" | "admin") {
  const shown = await getProposal({ ctx: fx.ctx(role), input: { proposalId } });
  return reviewProposal({
    ctx: fx.ctx(role),
    input: { proposalId, decision: "approve", notes: "", shownHash: shown.reviewedContentHash },
  });
}

async function failure(p: Promise<unknown>) {
  try {
    await p;
  } catch (e) {
    return e as Error;
  }
  throw new Error("expected a refusal");
}

const presets = { rules: [...RULE_PRESETS], allowedDomains: ["api.known.com", "*.partner.io"] };

describe("proposal rules settings", () => {
  it("are saved by admins only and read by any member, with the presets", async () => {
    await expect(updateProposalRules({ ctx: ws.ctx("editor"), input: presets })).rejects.toThrow(
      ForbiddenError,
    );
    await updateProposalRules({ ctx: ws.ctx("admin"), input: presets });
    const read = await getProposalRules({ ctx: ws.ctx("viewer") });
    expect(read.rules.map((r) => r.name)).toEqual(RULE_PRESETS.map((r) => r.name));
    expect(read.allowedDomains).toEqual(["api.known.com", "*.partner.io"]);
    expect(read.presets).toHaveLength(RULE_PRESETS.length);
    // Another workspace has none.
    expect((await getProposalRules({ ctx: other.ctx("viewer") })).rules).toEqual([]);
  });

  it("refuses a bad rule naming it and the line and column of the CEL error", async () => {
    const bad: ProposalRule = {
      name: "Half written",
      expression: "size(change.removedGates) > 0 &&\n  change.risk ==",
      effect: "refuse",
      message: "",
    };
    const e = await failure(
      updateProposalRules({
        ctx: ws.ctx("admin"),
        input: { rules: [RULE_PRESETS[0], bad], allowedDomains: [] },
      }),
    );
    expect(e).toBeInstanceOf(ValidationError);
    expect(e.message).toMatch(/^Rule "Half written", line 2 column \d+: /);
    expect((e as ValidationError).issues[0]).toMatchObject({
      path: ["rules", 1, "expression"],
      line: 2,
    });
    // The same refusal from the preview; the saved rules are unchanged.
    await expect(
      previewProposalRules({ ctx: ws.ctx("admin"), input: { rules: [bad], allowedDomains: [] } }),
    ).rejects.toThrow(/Half written", line 2/);
    expect((await getProposalRules({ ctx: ws.ctx("admin") })).rules).toHaveLength(3);
  });
});

describe("enforcement", () => {
  it("refuses creating a proposal that removes a gate, naming the rule", async () => {
    const wf = await workflow(ws);
    const e = await failure(propose(ws, wf, gateless));
    expect(e).toBeInstanceOf(ProposalError);
    expect((e as ProposalError).reason).toBe("POLICY_VIOLATION");
    expect(e.message).toMatch(/"Removing an approval gate is refused"/);
    // No rules in the other workspace: the same change is accepted there.
    const wf2 = await workflow(other);
    expect(await propose(other, wf2, gateless)).toMatchObject({ created: true });
  });

  it("stores each rule's verdict, and a domain outside the allowlist needs an admin's review", async () => {
    const wf = await workflow(ws);
    const p = await propose(ws, wf, withHost("hooks.unknown.io"));
    const [row] = await t.db.select().from(proposals).where(eq(proposals.id, p.id));
    expect(row!.ruleVerdicts.map((v) => [v.rule, v.fired])).toEqual([
      [RULE_PRESETS[0]!.name, true],
      [RULE_PRESETS[1]!.name, false],
      [RULE_PRESETS[2]!.name, false],
    ]);
    const refused = await failure(review(ws, p.id, "approver"));
    expect(refused).toBeInstanceOf(ForbiddenError);
    expect(refused.message).toMatch(/requires an admin to review this change; you are approver/);
    await review(ws, p.id, "admin");
    const applied = await applyProposal({ ctx: ws.ctx("admin"), input: { proposalId: p.id } });
    expect(applied.versionId).toBeTruthy();
  });

  it("lets an allowlisted domain through with an approver's review", async () => {
    const wf = await workflow(ws);
    const p = await propose(ws, wf, withHost("hooks.partner.io"));
    await review(ws, p.id, "approver");
    const [row] = await t.db.select().from(proposals).where(eq(proposals.id, p.id));
    expect(row!.ruleVerdicts.every((v) => v.fired === false)).toBe(true);
  });

  it("recomputes the rules at apply: a refusal added after approval stops the apply", async () => {
    const wf = await workflow(ws);
    const p = await propose(ws, wf, withHost("api.known.com"));
    await review(ws, p.id, "admin");
    await updateProposalRules({
      ctx: ws.ctx("admin"),
      input: {
        ...presets,
        rules: [
          ...presets.rules,
          { name: "Freeze", expression: "true", effect: "refuse", message: "Change freeze" },
        ],
      },
    });
    const e = await failure(applyProposal({ ctx: ws.ctx("admin"), input: { proposalId: p.id } }));
    expect(e.message).toMatch(/"Freeze" \(Change freeze\)/);
    await updateProposalRules({ ctx: ws.ctx("admin"), input: presets });
  });
});

describe("preview", () => {
  it("shows which rules would fire on each of the last proposals, newest first, admins only", async () => {
    const draft = {
      rules: [
        { name: "Any http", expression: '"http" in change.stepTypesAdded', effect: "warn" },
        { name: "From editors", expression: 'author.role == "editor"', effect: "warn" },
      ],
      allowedDomains: [],
    };
    await expect(previewProposalRules({ ctx: ws.ctx("editor"), input: draft })).rejects.toThrow(
      ForbiddenError,
    );
    const { items } = await previewProposalRules({ ctx: ws.ctx("admin"), input: draft });
    expect(items.length).toBeGreaterThanOrEqual(3);
    expect(items.length).toBeLessThanOrEqual(20);
    for (let i = 1; i < items.length; i++)
      expect(items[i - 1]!.createdAt >= items[i]!.createdAt).toBe(true);
    for (const item of items) {
      expect(item.fired).toContain("Any http");
      expect(item.fired).toContain("From editors");
    }
    // Only this workspace's proposals.
    const mine = await t.db
      .select({ id: proposals.id })
      .from(proposals)
      .where(eq(proposals.workspaceId, ws.workspaceId));
    expect(items.every((i) => mine.some((m) => m.id === i.proposalId))).toBe(true);
  });
});
