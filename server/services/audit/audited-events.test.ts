/**
 * Issue #17 item 5: every event type the audit log promises is recorded — sign-in and lockout,
 * member and role changes, token creation/revocation, secret changes, policy changes, publish,
 * rollback, proposal decisions and applies, approval decisions, trigger changes — each done
 * through its service verb, and no row anywhere carries a secret value or a password.
 */
import { and, eq, gt } from "drizzle-orm";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { auditEvents, oauthAccounts, users } from "@/db/schema";
import { startRunHarness, type RunHarness } from "@/server/testing/run-harness";
import { hashPassword } from "@/server/auth/password";
import { makeCtx } from "@/server/testing/harness";
import { createApiToken } from "../api-tokens/create-api-token";
import { revokeApiToken } from "../api-tokens/revoke-api-token";
import { decideApproval } from "../approvals/decide-approval";
import { signInWithOAuth } from "../auth/sign-in-with-oauth";
import { signInWithPassword } from "../auth/sign-in-with-password";
import { acceptInvitation } from "../invitations/accept-invitation";
import { createInvitation } from "../invitations/create-invitation";
import { changeMemberRole } from "../members/change-member-role";
import { removeMember } from "../members/remove-member";
import { applyProposal } from "../proposals/apply-proposal";
import { createProposal } from "../proposals/create-proposal";
import { getProposal } from "../proposals/get-proposal";
import { reviewProposal } from "../proposals/review-proposal";
import { rollbackProposal } from "../proposals/rollback-proposal";
import { setSelfModification } from "../proposals/set-self-modification";
import { createSecret } from "../secrets/create-secret";
import { deleteSecret } from "../secrets/delete-secret";
import { updateSecret } from "../secrets/update-secret";
import { updateWorkspacePolicies } from "../settings/update-workspace-policies";
import { createTrigger } from "../triggers/create-trigger";
import { deleteTrigger } from "../triggers/delete-trigger";
import { rotateWebhookSecret } from "../triggers/rotate-webhook-secret";
import { setTriggerEnabled } from "../triggers/set-trigger-enabled";
import { takeOverTrigger } from "../triggers/take-over-trigger";
import { updateTrigger } from "../triggers/update-trigger";
import { publishWorkflow } from "../workflows/publish-workflow";
import { rollbackWorkflow } from "../workflows/rollback-workflow";
import { saveDraft } from "../workflows/save-draft";

let e: RunHarness;
beforeAll(async () => {
  e = await startRunHarness("auditedevents");
});
afterAll(async () => {
  await e?.close();
});

const PASSWORD = "audited password 123";
const SECRET_VALUES = ["first-secret-value-xyz", "second-secret-value-xyz"];

/** The actions recorded in the workspace after row `since`, in order. */
async function actionsSince(since: number): Promise<string[]> {
  const rows = await e.db.db
    .select({ action: auditEvents.action })
    .from(auditEvents)
    .where(and(eq(auditEvents.workspaceId, e.ws.workspaceId), gt(auditEvents.id, since)))
    .orderBy(auditEvents.id);
  return rows.map((r) => r.action);
}

async function lastId(): Promise<number> {
  const rows = await e.db.db.select({ id: auditEvents.id }).from(auditEvents);
  return Math.max(0, ...rows.map((r) => r.id));
}

/** Runs `act` and expects exactly these actions (in this order) among the rows it wrote. */
async function expectAudited(act: () => Promise<unknown>, expected: string[]) {
  const since = await lastId();
  await act();
  const got = await actionsSince(since);
  for (const action of expected) expect(got, `after ${expected.join(", ")}`).toContain(action);
}

describe("every event type of the audit log is recorded", () => {
  const ws = () => e.ws;
  const ctx = (role: Parameters<RunHarness["ws"]["ctx"]>[0]) => e.ws.ctx(role);

  it("sign-in, failed sign-in and lockout", async () => {
    const userId = ws().members.viewer;
    await e.db.db
      .update(users)
      .set({ passwordHash: await hashPassword(PASSWORD) })
      .where(eq(users.id, userId));
    const [{ email }] = (await e.db.db
      .select({ email: users.email })
      .from(users)
      .where(eq(users.id, userId))) as [{ email: string }];
    const anon = makeCtx(e.db.db, { type: "anonymous" }, undefined, {
      client: { address: "192.0.2.77", userAgent: "audit-test" },
    });
    await expectAudited(
      () => signInWithPassword({ ctx: anon, input: { email, password: PASSWORD } }),
      ["auth.sign_in"],
    );
    await expectAudited(async () => {
      for (let i = 0; i < 5; i++)
        await signInWithPassword({ ctx: anon, input: { email, password: "wrong password" } });
    }, ["auth.sign_in_failed", "auth.lockout"]);
  });

  it("sign-in with a linked GitHub account", async () => {
    await e.db.db.insert(oauthAccounts).values({
      id: "oa_audited",
      userId: ws().members.approver,
      provider: "github",
      providerAccountId: "424242",
    });
    await expectAudited(
      () =>
        signInWithOAuth({
          ctx: makeCtx(e.db.db, { type: "system", name: "auth" }),
          input: { provider: "github", providerAccountId: "424242", email: "x@example.com" },
        }),
      ["auth.sign_in"],
    );
  });

  it("member and role changes", async () => {
    const joiner = await e.ws.addMember("viewer");
    await expectAudited(
      () => changeMemberRole({ ctx: ctx("admin"), input: { userId: joiner, role: "editor" } }),
      ["member.role_changed"],
    );
    await expectAudited(
      () => removeMember({ ctx: ctx("admin"), input: { userId: joiner } }),
      ["member.removed"],
    );
    const inv = await createInvitation({
      ctx: ctx("admin"),
      input: { email: "audited-joiner@example.com", role: "viewer" },
    });
    const invitee = await e.ws.addMember("viewer");
    // The invitee belongs to another workspace first; accepting is audited in this one.
    await e.db.db
      .update(users)
      .set({ email: "audited-joiner@example.com" })
      .where(eq(users.id, invitee));
    await removeMember({ ctx: ctx("admin"), input: { userId: invitee } });
    await expectAudited(
      () =>
        acceptInvitation({
          ctx: makeCtx(e.db.db, { type: "user", userId: invitee }),
          input: { token: inv.token },
        }),
      ["invitation.accepted"],
    );
  });

  it("token creation and revocation", async () => {
    let tokenId = "";
    await expectAudited(async () => {
      tokenId = (
        await createApiToken({ ctx: ctx("editor"), input: { name: "ci", role: "viewer" } })
      ).id;
    }, ["api_token.created"]);
    await expectAudited(
      () => revokeApiToken({ ctx: ctx("editor"), input: { tokenId } }),
      ["api_token.revoked"],
    );
  });

  it("secret changes", async () => {
    await expectAudited(
      () =>
        createSecret({ ctx: ctx("admin"), input: { name: "AUDITED", value: SECRET_VALUES[0] } }),
      ["secret.created"],
    );
    await expectAudited(
      () =>
        updateSecret({ ctx: ctx("admin"), input: { name: "AUDITED", value: SECRET_VALUES[1] } }),
      ["secret.updated"],
    );
    await expectAudited(
      () => deleteSecret({ ctx: ctx("admin"), input: { name: "AUDITED" } }),
      ["secret.deleted"],
    );
  });

  it("policy changes", async () => {
    await expectAudited(
      () =>
        updateWorkspacePolicies({
          ctx: ctx("admin"),
          input: {
            scriptStepsEnabled: false,
            allowedPrivateHosts: [],
            forbiddenStepTypes: [],
            allowSelfApproval: false,
            proposalDryRunRuns: 3,
          },
        }),
      ["workspace.policies_updated"],
    );
  });

  it("publish, rollback, proposal decisions, applies and rollbacks", async () => {
    const def = (value: number) => ({
      schemaVersion: 1,
      name: "Audited",
      steps: [{ id: "a", type: "transform", config: { value } }],
    });
    const workflowId = await e.workflow(def(1));
    await saveDraft({ ctx: ctx("editor"), input: { workflowId, definition: def(2) } });
    let second: { versionId: string } | undefined;
    await expectAudited(async () => {
      second = await publishWorkflow({ ctx: ctx("editor"), input: { workflowId } });
    }, ["workflow.version_publish"]);
    const first = await e.db.db.query.workflowVersions.findFirst({
      where: (v, { and: both, eq: is, ne }) =>
        both(is(v.workflowId, workflowId), ne(v.id, second!.versionId)),
    });
    await expectAudited(
      () => rollbackWorkflow({ ctx: ctx("editor"), input: { workflowId, versionId: first!.id } }),
      ["workflow.version_rollback"],
    );

    await expectAudited(
      () => setSelfModification({ ctx: ctx("admin"), input: { workflowId, enabled: true } }),
      ["workflow.self_modification_enabled"],
    );
    const propose = () =>
      createProposal({
        ctx: ctx("editor"),
        input: {
          baseHash: "current",
          workflowId,
          summary: "value 3",
          patch: [{ op: "replace", path: "/steps/0/config/value", value: 3 }],
        },
      });
    const review = async (proposalId: string, decision: "approve" | "reject") => {
      const p = await getProposal({ ctx: ctx("admin"), input: { proposalId } });
      return reviewProposal({
        ctx: ctx("admin"),
        input: { proposalId, decision, shownHash: p.reviewedContentHash },
      });
    };
    let proposalId = "";
    await expectAudited(async () => {
      proposalId = (await propose()).id;
    }, ["proposal.created"]);
    await expectAudited(() => review(proposalId, "approve"), ["proposal.approved"]);
    await expectAudited(
      () => applyProposal({ ctx: ctx("admin"), input: { proposalId } }),
      ["proposal.applied"],
    );
    await expectAudited(
      () => rollbackProposal({ ctx: ctx("admin"), input: { proposalId } }),
      ["proposal.rolled_back"],
    );
    const rejected = (await propose()).id;
    await expectAudited(() => review(rejected, "reject"), ["proposal.rejected"]);
  });

  it("approval decisions", async () => {
    const workflowId = await e.workflow({
      schemaVersion: 1,
      name: "Gate",
      steps: [{ id: "ask", type: "approval", config: { prompt: "Go?" } }],
    });
    const runId = await e.start(workflowId);
    const approval = await e.pendingApproval(runId);
    await expectAudited(
      () =>
        decideApproval({
          ctx: ctx("approver"),
          input: { approvalId: approval.id, approve: true },
          via: "ui",
        }),
      ["approval.approved"],
    );
  });

  it("trigger changes", async () => {
    const workflowId = await e.workflow({
      schemaVersion: 1,
      name: "Hooked",
      steps: [{ id: "a", type: "transform", config: { value: 1 } }],
    });
    let triggerId = "";
    await expectAudited(async () => {
      triggerId = (
        await createTrigger({
          ctx: ctx("editor"),
          input: { kind: "webhook", workflowId, name: "Hook", path: "audited-hook", config: {} },
        })
      ).trigger.id;
    }, ["trigger.created"]);
    await expectAudited(
      () => updateTrigger({ ctx: ctx("editor"), input: { triggerId, name: "Renamed" } }),
      ["trigger.updated"],
    );
    await expectAudited(
      () => setTriggerEnabled({ ctx: ctx("editor"), input: { triggerId, enabled: false } }),
      ["trigger.disabled"],
    );
    await expectAudited(
      () => rotateWebhookSecret({ ctx: ctx("editor"), input: { triggerId, graceMinutes: 0 } }),
      ["trigger.secret_rotated"],
    );
    await expectAudited(
      () => takeOverTrigger({ ctx: ctx("admin"), input: { triggerId } }),
      ["trigger.taken_over"],
    );
    await expectAudited(
      () => deleteTrigger({ ctx: ctx("editor"), input: { triggerId } }),
      ["trigger.deleted"],
    );
  });

  it("no audit row holds a secret value, a webhook secret or a password", async () => {
    const rows = await e.db.db.select().from(auditEvents);
    const text = JSON.stringify(rows);
    for (const value of [...SECRET_VALUES, PASSWORD, "wrong password"])
      expect(text).not.toContain(value);
    expect(text).not.toMatch(/whsec_[A-Za-z0-9+/]{20}/);
    expect(text).not.toMatch(/slu_[A-Za-z0-9_-]{20}/);
  });
});
