/**
 * The workspace policy "required approvals" (RFC 001 §12), wired through every way a definition
 * becomes a version (publish, import, sync), inline runs, and proposals (creation and apply).
 * The graph rule itself is tested case by case in lib/workflow/required-approvals.test.ts.
 *
 *   start → fetch → charge (http POST)                  refused: no approval on the path
 *   start → fetch → ask ─approved─▶ charge (http POST)  accepted
 */
import { eq } from "drizzle-orm";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { proposals } from "@/db/schema";
import { createTestDb, type TestDb } from "@/db/testing";
import { DEFAULT_WORKSPACE_POLICIES } from "@/lib/schemas/workspace";
import type { ApprovalTarget } from "@/lib/workflow/required-approvals";
import { ValidationError } from "../../errors";
import { createWorkspaceFixture, type WorkspaceFixture } from "../../testing/harness";
import { applyProposal } from "../proposals/apply-proposal";
import { createProposal } from "../proposals/create-proposal";
import { ProposalError } from "../proposals/errors";
import { getProposal } from "../proposals/get-proposal";
import { reviewProposal } from "../proposals/review-proposal";
import { startInlineRun } from "../runs/start-inline-run";
import { getWorkspaceSettings } from "../settings/get-workspace-settings";
import { updateWorkspacePolicies } from "../settings/update-workspace-policies";
import { createWorkflow } from "./create-workflow";
import { importWorkflow } from "./import-workflow";
import { publishWorkflow } from "./publish-workflow";
import { saveDraft } from "./save-draft";
import { syncWorkflows } from "./sync-workflows";

let t: TestDb;
beforeAll(async () => {
  t = await createTestDb("requiredapprovals");
});
afterAll(async () => {
  await t?.close();
});

const fetch = { id: "fetch", type: "transform", config: { value: 1 } };
const charge = {
  id: "charge",
  type: "http",
  config: { method: "POST", url: "https://pay.example/charge" },
};
const ask = { id: "ask", type: "approval", config: { prompt: "Charge the card?" } };
const ungated = (extra: Record<string, unknown> = {}) => ({
  schemaVersion: 1,
  name: "Charge",
  steps: [fetch, charge],
  ...extra,
});
const gated = (extra: Record<string, unknown> = {}) => ({
  schemaVersion: 1,
  name: "Charge",
  steps: [fetch, ask, charge],
  ...extra,
});
const MESSAGE =
  'step "charge" (http POST) is reachable without an approval: start → fetch → charge';

async function requireApprovals(fx: WorkspaceFixture, targets: ApprovalTarget[]) {
  const { requiredApprovals: _, ...rest } = DEFAULT_WORKSPACE_POLICIES;
  return updateWorkspacePolicies({
    ctx: fx.ctx("admin"),
    input: { ...rest, requiredApprovals: targets },
  });
}

async function refusal(p: Promise<unknown>): Promise<ValidationError> {
  const e = await p.then(
    () => null,
    (x: unknown) => x,
  );
  expect(e).toBeInstanceOf(ValidationError);
  return e as ValidationError;
}

describe("required approvals", () => {
  it("an admin sets it; publish names the step and the path, and passes once a gate is in front", async () => {
    const fx = await createWorkspaceFixture(t.db, "ReqPublish");
    await expect(
      updateWorkspacePolicies({
        ctx: fx.ctx("editor"),
        input: { ...DEFAULT_WORKSPACE_POLICIES, requiredApprovals: ["script"] },
      }),
    ).rejects.toThrow(/admin/);
    expect(await requireApprovals(fx, ["http_write", "script"])).toMatchObject({
      requiredApprovals: ["http_write", "script"],
    });
    expect(
      (await getWorkspaceSettings({ ctx: fx.ctx("viewer") })).policies.requiredApprovals,
    ).toEqual(["http_write", "script"]);

    const w = await createWorkflow({ ctx: fx.ctx("editor"), input: { name: "Charge" } });
    // The editor shows it on the draft already.
    const saved = await saveDraft({
      ctx: fx.ctx("editor"),
      input: { workflowId: w.id, definition: ungated() },
    });
    expect(saved.issues).toContainEqual(
      expect.objectContaining({ code: "APPROVAL_REQUIRED", stepId: "charge", path: ["steps", 1] }),
    );
    const e = await refusal(
      publishWorkflow({ ctx: fx.ctx("editor"), input: { workflowId: w.id } }),
    );
    expect(e.message).toContain(MESSAGE);
    expect(e.details).toMatchObject({
      issues: [{ code: "APPROVAL_REQUIRED", path: ["steps", 1], stepId: "charge" }],
    });

    await saveDraft({ ctx: fx.ctx("editor"), input: { workflowId: w.id, definition: gated() } });
    expect(
      await publishWorkflow({ ctx: fx.ctx("editor"), input: { workflowId: w.id } }),
    ).toMatchObject({ status: "created", version: "1.0.1" });
  });

  it("import, sync and inline runs are refused the same way; other workspaces are not affected", async () => {
    const fx = await createWorkspaceFixture(t.db, "ReqChannels");
    await requireApprovals(fx, ["http_write"]);
    const imported = await refusal(
      importWorkflow({ ctx: fx.ctx("editor"), input: { content: JSON.stringify(ungated()) } }),
    );
    expect(imported.message).toContain(MESSAGE);
    const synced = await refusal(
      syncWorkflows({
        ctx: fx.ctx("editor"),
        input: { workflows: [{ slug: "charge", ...ungated() }] },
      }),
    );
    expect(
      (synced.details as { issues: { code: string; message: string }[] }).issues,
    ).toContainEqual(
      expect.objectContaining({
        code: "APPROVAL_REQUIRED",
        message: expect.stringContaining(MESSAGE),
      }),
    );
    const inline = await refusal(
      startInlineRun({ ctx: fx.ctx("editor"), input: { definition: ungated() } }),
    );
    expect(inline.message).toContain(MESSAGE);
    expect(
      await importWorkflow({ ctx: fx.ctx("editor"), input: { content: JSON.stringify(gated()) } }),
    ).toMatchObject({ version: "1.0.0" });

    const other = await createWorkspaceFixture(t.db, "ReqOther");
    expect(
      await importWorkflow({
        ctx: other.ctx("editor"),
        input: { content: JSON.stringify(ungated()) },
      }),
    ).toMatchObject({ version: "1.0.0" });
  });

  it("proposals: creation is a POLICY_VIOLATION naming the step and path; one approved before the policy fails on apply", async () => {
    const fx = await createWorkspaceFixture(t.db, "ReqProposals");
    const selfModifying = { constraints: { allowSelfModification: true } };
    const w = await createWorkflow({ ctx: fx.ctx("owner"), input: { name: "Charge" } });
    await saveDraft({
      ctx: fx.ctx("owner"),
      input: { workflowId: w.id, definition: gated(selfModifying) },
    });
    await publishWorkflow({ ctx: fx.ctx("owner"), input: { workflowId: w.id } });
    const bypass = {
      workflowId: w.id,
      baseHash: "current",
      summary: "Skip the question",
      definition: ungated(selfModifying),
    };
    // Before the policy: an ordinary (high-risk) proposal, approved by someone else.
    const early = await createProposal({ ctx: fx.ctx("editor"), input: bypass });
    const shown = (await getProposal({ ctx: fx.ctx("admin"), input: { proposalId: early.id } }))
      .reviewedContentHash;
    await reviewProposal({
      ctx: fx.ctx("admin"),
      input: { proposalId: early.id, decision: "approve", shownHash: shown },
    });

    await requireApprovals(fx, ["http_write"]);
    const e = await createProposal({ ctx: fx.ctx("editor"), input: bypass }).catch(
      (x: unknown) => x,
    );
    expect(e).toBeInstanceOf(ProposalError);
    expect(e).toMatchObject({
      reason: "POLICY_VIOLATION",
      code: "FORBIDDEN",
      details: {
        issues: [{ policy: "required_approvals", stepIds: ["charge"], code: "POLICY_VIOLATION" }],
      },
    });
    expect((e as Error).message).toContain(`S${MESSAGE.slice(1)}`);

    await expect(
      applyProposal({ ctx: fx.ctx("owner"), input: { proposalId: early.id } }),
    ).rejects.toMatchObject({ reason: "POLICY_VIOLATION" });
    const [row] = await t.db.select().from(proposals).where(eq(proposals.id, early.id));
    expect(row).toMatchObject({ status: "failed" });
    expect(row!.statusReason).toContain("without an approval");
  });
});
