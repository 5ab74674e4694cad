/**
 * Authorization matrix: every tRPC procedure × (anonymous, each role, a member of another
 * workspace) → allowed or refused as designed. A procedure missing from the table fails the test,
 * so new procedures must declare their access here.
 */
import { TRPCError } from "@trpc/server";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { createTestDb, type TestDb } from "@/db/testing";
import { ROLES, hasRole, type Role } from "@/lib/schemas/roles";
import {
  createWorkspaceFixture,
  makeCtx,
  testKeys,
  type WorkspaceFixture,
} from "../testing/harness";
import { createApiToken } from "../services/api-tokens/create-api-token";
import { createInvitation } from "../services/invitations/create-invitation";
import { eq } from "drizzle-orm";
import { runs as runsTable, triggers as triggersTable } from "@/db/schema";
import { newId } from "@/lib/ids";
import { openApproval } from "../services/run-state/approval-gate";
import { startRun } from "../services/runs/start-run";
import { createWorkflow } from "../services/workflows/create-workflow";
import { listVersions } from "../services/workflows/list-versions";
import { publishWorkflow } from "../services/workflows/publish-workflow";
import { saveDraft } from "../services/workflows/save-draft";
import { createSecret } from "../services/secrets/create-secret";
import { createTrigger } from "../services/triggers/create-trigger";
import { applyProposal } from "../services/proposals/apply-proposal";
import { createProposal } from "../services/proposals/create-proposal";
import { getProposal } from "../services/proposals/get-proposal";
import { reviewProposal } from "../services/proposals/review-proposal";
import { generate } from "otplib";
import { users as usersTable } from "@/db/schema";
import { hashPassword } from "../auth/password";
import { createSession } from "../services/sessions/create-session";
import { beginTwoFactorEnrolment } from "../services/two-factor/begin-two-factor-enrolment";
import { confirmTwoFactorEnrolment } from "../services/two-factor/confirm-two-factor-enrolment";
import { openTestTask } from "../testing/tasks";
import { appRouter, createCaller } from "./root";

type Access = "public" | "authed" | Role;
interface Case {
  access: Access;
  /** Builds a valid input against the caller's own workspace fixture. */
  input?: (fx: WorkspaceFixture, callerRole: Role) => Promise<unknown> | unknown;
  /** Builds an input naming a resource of ANOTHER workspace; must never succeed. */
  foreign?: (other: WorkspaceFixture) => Promise<unknown> | unknown;
}

/** A webhook trigger (via the service, so it has a sealed secret) on a published workflow. */
async function webhookIn(fx: WorkspaceFixture) {
  const { workflowId } = await wfWithVersions(fx);
  const r = await createTrigger({
    ctx: fx.ctx("owner"),
    input: { kind: "webhook", workflowId, name: "Hook", config: {} },
  });
  return r.trigger.id;
}

/** A workflow in the fixture's workspace, with two versions (the second differs). */
async function wf(fx: WorkspaceFixture) {
  const w = await createWorkflow({ ctx: fx.ctx("owner"), input: { name: `W ${Math.random()}` } });
  return w.id;
}
async function wfWithVersions(fx: WorkspaceFixture) {
  const workflowId = await wf(fx);
  const def = {
    schemaVersion: 1,
    name: "V",
    steps: [{ id: "s", type: "transform", config: { value: 1 } }],
  };
  await saveDraft({ ctx: fx.ctx("owner"), input: { workflowId, definition: def } });
  await publishWorkflow({ ctx: fx.ctx("owner"), input: { workflowId } });
  const versions = await listVersions({ ctx: fx.ctx("owner"), input: { workflowId } });
  return { workflowId, newest: versions[0]!.id, oldest: versions[versions.length - 1]!.id };
}
const WF_DEF = {
  schemaVersion: 1,
  name: "Imported",
  steps: [{ id: "s", type: "transform", config: { value: 2 } }],
};

/** A run in the fixture's workspace (admitted; nothing executes it in this test). */
async function runIn(fx: WorkspaceFixture) {
  const workflowId = await wf(fx);
  const r = await startRun({ ctx: fx.ctx("owner"), input: { workflowId } });
  return r.runId;
}
/** A schedule trigger in the fixture's workspace (inserted directly: trigger CRUD is separate). */
async function scheduleIn(fx: WorkspaceFixture) {
  const id = newId("trg");
  await fx
    .ctx("owner")
    .db.insert(triggersTable)
    .values({
      id,
      workspaceId: fx.workspaceId,
      workflowId: await wf(fx),
      kind: "schedule",
      name: "Nightly",
      config: { cron: "0 3 * * *", timezone: "Europe/Berlin" },
    });
  return id;
}
/** A pending approval (quorum 1, anyone with the approver role) on a run of the fixture. */
async function approvalIn(fx: WorkspaceFixture) {
  const runId = await runIn(fx);
  const [run] = await fx.ctx("owner").db.select().from(runsTable).where(eq(runsTable.id, runId));
  const opened = await openApproval(fx.ctx("owner").db, testKeys, {
    key: {
      runId,
      workspaceId: fx.workspaceId,
      stepId: "gate",
      path: "gate",
      stepType: "approval",
      attempt: 1,
    },
    workflowId: run!.workflowId!,
    hash: run!.hash,
    prompt: "Ship?",
    items: null,
    approvers: {},
    quorum: 1,
    allowInitiator: true,
    initiatorUserId: null,
    onTimeout: "reject",
    expiresAt: new Date(Date.now() + 3_600_000),
    now: new Date(),
  });
  return { runId, approvalId: opened.approvalId };
}
/** A pending task assigned to every role, on a run of the fixture. */
async function taskIn(fx: WorkspaceFixture) {
  return openTestTask(fx.ctx("owner").db, fx, await runIn(fx));
}

const proposalDef = (value: number) => ({
  schemaVersion: 1,
  name: "P",
  constraints: { allowSelfModification: true },
  steps: [{ id: "s", type: "transform", config: { value } }],
});
/** A published workflow that accepts proposals, created by `creator`. */
async function proposableWf(fx: WorkspaceFixture, creator: Role = "owner") {
  const ctx = fx.ctx(hasRole(creator, "editor") ? creator : "owner");
  const w = await createWorkflow({ ctx, input: { name: `P ${Math.random()}` } });
  await saveDraft({ ctx, input: { workflowId: w.id, definition: proposalDef(1) } });
  await publishWorkflow({ ctx, input: { workflowId: w.id } });
  return w.id;
}
/**
 * A low-risk proposal by an extra editor (so no caller is its proposer), optionally approved by
 * the owner and applied.
 */
async function proposalIn(
  fx: WorkspaceFixture,
  opts: { state?: "pending" | "approved" | "applied"; creator?: Role } = {},
) {
  const workflowId = await proposableWf(fx, opts.creator);
  const proposer = makeCtx(
    fx.ctx("owner").db,
    { type: "user", userId: await fx.addMember("editor") },
    { id: fx.workspaceId, role: "editor" },
  );
  const { id } = await createProposal({
    ctx: proposer,
    input: { workflowId, baseHash: "current", summary: "bump", definition: proposalDef(2) },
  });
  if (opts.state === "approved" || opts.state === "applied") {
    const shownHash = (await getProposal({ ctx: fx.ctx("owner"), input: { proposalId: id } }))
      .reviewedContentHash;
    await reviewProposal({
      ctx: fx.ctx("owner"),
      input: { proposalId: id, decision: "approve", shownHash },
    });
  }
  if (opts.state === "applied")
    await applyProposal({ ctx: fx.ctx("owner"), input: { proposalId: id } });
  return id;
}
async function reviewInput(fx: WorkspaceFixture) {
  const proposalId = await proposalIn(fx);
  const shownHash = (await getProposal({ ctx: fx.ctx("owner"), input: { proposalId } }))
    .reviewedContentHash;
  return { proposalId, decision: "approve", notes: "ok", shownHash };
}

/** A browser session of the fixture member with `role` (the caller, or a foreign user). */
async function sessionOf(fx: WorkspaceFixture, role: Role) {
  const ctx = fx.ctx(role);
  const { sessionId } = await createSession({ ctx, input: { userId: fx.members[role] } });
  return sessionId;
}
const OLD_PASSWORD = "old-password-0123";
let oldHash: Promise<string> | undefined;
/** Gives the member a known password, so a password change can run. */
async function withPassword(fx: WorkspaceFixture, role: Role) {
  await fx
    .ctx("owner")
    .db.update(usersTable)
    .set({ passwordHash: await (oldHash ??= hashPassword(OLD_PASSWORD)) })
    .where(eq(usersTable.id, fx.members[role]));
  return { currentPassword: OLD_PASSWORD, newPassword: "new-password-0123" };
}
const totpAt = (secret: string, ms: number) => generate({ secret, epoch: Math.floor(ms / 1000) });
/** A valid code for the role's member's pending enrolment (two-factor needs a password account). */
async function pendingTwoFactorCode(fx: WorkspaceFixture, role: Role) {
  await withPassword(fx, role);
  const { manualKey } = await beginTwoFactorEnrolment({ ctx: fx.ctx(role) });
  const secret = manualKey.replace(/\s+/g, "");
  return { secret, code: await totpAt(secret, Date.now()) };
}
/** Two-factor on for the role's member, and a fresh code (the next step, not yet used). */
async function freshTwoFactorCode(fx: WorkspaceFixture, role: Role) {
  const { secret, code } = await pendingTwoFactorCode(fx, role);
  await confirmTwoFactorEnrolment({ ctx: fx.ctx(role), input: { code } });
  return { code: await totpAt(secret, Date.now() + 30_000) };
}

const CASES: Record<string, Case> = {
  "auth.signUp": {
    access: "public",
    input: async (fx) => {
      const email = `s${Math.random()}@example.com`;
      const inv = await createInvitation({
        ctx: fx.ctx("owner"),
        input: { email, role: "viewer" },
      });
      return { name: "X", email, password: "0123456789ab", invitationToken: inv.token };
    },
  },
  "me.get": { access: "authed" },
  "me.changePassword": { access: "authed", input: (fx, role) => withPassword(fx, role) },
  "session.list": { access: "authed" },
  "session.revoke": {
    access: "authed",
    input: (fx, role) => sessionOf(fx, role).then((sessionId) => ({ sessionId })),
    // Another user's session (of another workspace) is unknown to the caller.
    foreign: (other) => sessionOf(other, "owner").then((sessionId) => ({ sessionId })),
  },
  "session.revokeAll": { access: "authed", input: () => ({ exceptCurrent: true }) },
  "workspace.current": { access: "viewer" },
  "workspace.list": { access: "authed" },
  "workspace.create": { access: "authed", input: () => ({ name: "Another" }) },
  "workspace.rename": { access: "admin", input: () => ({ name: "Renamed" }) },
  "workspace.switch": {
    access: "authed",
    input: (fx) => ({ workspaceId: fx.workspaceId }),
    foreign: (other) => ({ workspaceId: other.workspaceId }),
  },
  "member.list": { access: "viewer" },
  "member.changeRole": {
    access: "admin",
    input: async (fx) => ({ userId: await fx.addMember("viewer"), role: "approver" }),
    foreign: (other) => ({ userId: other.members.viewer, role: "approver" }),
  },
  "member.remove": {
    access: "admin",
    input: async (fx) => ({ userId: await fx.addMember("viewer") }),
    foreign: (other) => ({ userId: other.members.viewer }),
  },
  "invitation.list": { access: "admin" },
  "invitation.create": {
    access: "admin",
    input: () => ({ email: `i${Math.random()}@example.com`, role: "viewer" }),
  },
  "invitation.revoke": {
    access: "admin",
    input: async (fx) => ({
      invitationId: (
        await createInvitation({
          ctx: fx.ctx("owner"),
          input: { email: `r${Math.random()}@example.com`, role: "viewer" },
        })
      ).id,
    }),
    foreign: async (other) => ({
      invitationId: (
        await createInvitation({
          ctx: other.ctx("owner"),
          input: { email: `f${Math.random()}@example.com`, role: "viewer" },
        })
      ).id,
    }),
  },
  "invitation.get": {
    access: "public",
    input: async (fx) => ({
      token: (
        await createInvitation({
          ctx: fx.ctx("owner"),
          input: { email: `g${Math.random()}@example.com`, role: "viewer" },
        })
      ).token,
    }),
  },
  "invitation.accept": { access: "authed", input: () => ({ token: "inv_does-not-exist-000000" }) },
  "workflow.starters": { access: "viewer" },
  "workflow.list": { access: "viewer" },
  "recording.suggestions": {
    access: "viewer",
    input: async (fx) => ({ workflowId: await wf(fx) }),
    foreign: async (o) => ({ workflowId: await wf(o) }),
  },
  "workflow.get": {
    access: "viewer",
    input: async (fx) => ({ workflowId: await wf(fx) }),
    foreign: async (o) => ({ workflowId: await wf(o) }),
  },
  "workflow.create": { access: "editor", input: () => ({ name: "New" }) },
  "workflow.update": {
    access: "editor",
    input: async (fx) => ({ workflowId: await wf(fx), name: "Renamed" }),
    foreign: async (o) => ({ workflowId: await wf(o), name: "Hijack" }),
  },
  "workflow.duplicate": {
    access: "editor",
    input: async (fx) => ({ workflowId: await wf(fx) }),
    foreign: async (o) => ({ workflowId: await wf(o) }),
  },
  "workflow.delete": {
    access: "editor",
    input: async (fx) => {
      const w = await createWorkflow({ ctx: fx.ctx("owner"), input: { name: "Doomed" } });
      return { workflowId: w.id, confirmName: "Doomed" };
    },
    foreign: async (o) => {
      const w = await createWorkflow({ ctx: o.ctx("owner"), input: { name: "Theirs" } });
      return { workflowId: w.id, confirmName: "Theirs" };
    },
  },
  "workflow.saveDraft": {
    access: "editor",
    input: async (fx) => ({ workflowId: await wf(fx), definition: WF_DEF }),
    foreign: async (o) => ({ workflowId: await wf(o), definition: WF_DEF }),
  },
  "workflow.saveLayout": {
    access: "editor",
    input: async (fx) => ({ workflowId: await wf(fx), layout: { positions: {} } }),
    foreign: async (o) => ({ workflowId: await wf(o), layout: {} }),
  },
  "workflow.publish": {
    access: "editor",
    input: async (fx) => ({ workflowId: await wf(fx) }),
    foreign: async (o) => ({ workflowId: await wf(o) }),
  },
  "workflow.versions": {
    access: "viewer",
    input: async (fx) => ({ workflowId: await wf(fx) }),
    foreign: async (o) => ({ workflowId: await wf(o) }),
  },
  "workflow.version": {
    access: "viewer",
    input: async (fx) => {
      const v = await wfWithVersions(fx);
      return { workflowId: v.workflowId, versionId: v.newest };
    },
    foreign: async (o) => {
      const v = await wfWithVersions(o);
      return { workflowId: v.workflowId, versionId: v.newest };
    },
  },
  "workflow.compare": {
    access: "viewer",
    input: async (fx) => {
      const v = await wfWithVersions(fx);
      return { workflowId: v.workflowId, from: v.oldest, to: v.newest };
    },
    foreign: async (o) => {
      const v = await wfWithVersions(o);
      return { workflowId: v.workflowId, from: v.oldest, to: v.newest };
    },
  },
  "workflow.rollback": {
    access: "editor",
    input: async (fx) => {
      const v = await wfWithVersions(fx);
      return { workflowId: v.workflowId, versionId: v.oldest };
    },
    foreign: async (o) => {
      const v = await wfWithVersions(o);
      return { workflowId: v.workflowId, versionId: v.oldest };
    },
  },
  "workflow.import": {
    access: "editor",
    input: () => ({ content: JSON.stringify(WF_DEF) }),
    foreign: async (o) => ({ workflowId: await wf(o), content: JSON.stringify(WF_DEF) }),
  },
  "workflow.export": {
    access: "viewer",
    input: async (fx) => ({ workflowId: await wf(fx) }),
    foreign: async (o) => ({ workflowId: await wf(o) }),
  },
  "workflow.testStep": {
    access: "editor",
    input: async (fx) => ({ workflowId: (await wfWithVersions(fx)).workflowId, stepId: "s" }),
    foreign: async (o) => ({ workflowId: (await wfWithVersions(o)).workflowId, stepId: "s" }),
  },
  "workflow.previewTestStep": {
    access: "editor",
    input: async (fx) => ({ workflowId: (await wfWithVersions(fx)).workflowId, stepId: "s" }),
    foreign: async (o) => ({ workflowId: (await wfWithVersions(o)).workflowId, stepId: "s" }),
  },
  "run.list": { access: "viewer" },
  "search.global": { access: "viewer", input: () => ({ q: "W" }) },
  "run.get": {
    access: "viewer",
    input: async (fx) => ({ runId: await runIn(fx) }),
    foreign: async (o) => ({ runId: await runIn(o) }),
  },
  "run.steps": {
    access: "viewer",
    input: async (fx) => ({ runId: await runIn(fx) }),
    foreign: async (o) => ({ runId: await runIn(o) }),
  },
  "run.events": {
    access: "viewer",
    input: async (fx) => ({ runId: await runIn(fx) }),
    foreign: async (o) => ({ runId: await runIn(o) }),
  },
  "run.start": {
    access: "editor",
    input: async (fx) => ({ workflowId: await wf(fx) }),
    foreign: async (o) => ({ workflowId: await wf(o) }),
  },
  "run.startInline": {
    access: "editor",
    input: async () => ({
      definition: {
        schemaVersion: 1,
        name: "Inline",
        steps: [{ id: "s", type: "transform", config: { value: 1 } }],
      },
    }),
  },
  "run.cancel": {
    access: "editor",
    input: async (fx) => ({ runId: await runIn(fx) }),
    foreign: async (o) => ({ runId: await runIn(o) }),
  },
  "run.rerun": {
    access: "editor",
    input: async (fx) => ({ runId: await runIn(fx) }),
    foreign: async (o) => ({ runId: await runIn(o) }),
  },
  "run.previewRerun": {
    access: "viewer",
    input: async (fx) => ({ runId: await runIn(fx) }),
    foreign: async (o) => ({ runId: await runIn(o) }),
  },
  "run.diff": {
    access: "viewer",
    input: async (fx) => ({ runId: await runIn(fx), withRunId: await runIn(fx) }),
    foreign: async (o) => ({ runId: await runIn(o), withRunId: await runIn(o) }),
  },
  "approval.list": { access: "viewer" },
  "approval.decide": {
    access: "approver",
    input: async (fx) => ({ approvalId: (await approvalIn(fx)).approvalId, approve: true }),
    foreign: async (o) => ({ approvalId: (await approvalIn(o)).approvalId, approve: true }),
  },
  "task.list": { access: "viewer" },
  "task.get": {
    access: "viewer",
    input: async (fx) => ({ taskId: await taskIn(fx) }),
    foreign: async (o) => ({ taskId: await taskIn(o) }),
  },
  "task.complete": {
    access: "viewer",
    input: async (fx) => ({ taskId: await taskIn(fx), output: { done: true } }),
    foreign: async (o) => ({ taskId: await taskIn(o), output: {} }),
  },
  "task.fail": {
    access: "viewer",
    input: async (fx) => ({ taskId: await taskIn(fx), reason: "blocked" }),
    foreign: async (o) => ({ taskId: await taskIn(o), reason: "blocked" }),
  },
  "schedule.preview": {
    access: "viewer",
    input: () => ({ cron: "0 9 * * 1-5", timezone: "Europe/Berlin", count: 3 }),
  },
  "schedule.ticks": {
    access: "viewer",
    input: async (fx) => ({ triggerId: await scheduleIn(fx) }),
    foreign: async (o) => ({ triggerId: await scheduleIn(o) }),
  },
  "trigger.list": { access: "viewer" },
  "trigger.get": {
    access: "viewer",
    input: async (fx) => ({ triggerId: await webhookIn(fx) }),
    foreign: async (o) => ({ triggerId: await webhookIn(o) }),
  },
  "trigger.deliveries": {
    access: "viewer",
    input: async (fx) => ({ triggerId: await webhookIn(fx) }),
    foreign: async (o) => ({ triggerId: await webhookIn(o) }),
  },
  "trigger.create": {
    access: "editor",
    input: async (fx) => ({ kind: "webhook", workflowId: await wf(fx), name: "Hook", config: {} }),
    foreign: async (o) => ({ kind: "webhook", workflowId: await wf(o), name: "Hook", config: {} }),
  },
  "trigger.update": {
    access: "editor",
    input: async (fx) => ({ triggerId: await webhookIn(fx), name: "Renamed" }),
    foreign: async (o) => ({ triggerId: await webhookIn(o), name: "Renamed" }),
  },
  "trigger.setEnabled": {
    access: "editor",
    input: async (fx) => ({ triggerId: await webhookIn(fx), enabled: false }),
    foreign: async (o) => ({ triggerId: await webhookIn(o), enabled: false }),
  },
  "trigger.delete": {
    access: "editor",
    input: async (fx) => ({ triggerId: await webhookIn(fx) }),
    foreign: async (o) => ({ triggerId: await webhookIn(o) }),
  },
  "trigger.fire": {
    access: "editor",
    input: async (fx) => ({ triggerId: await webhookIn(fx) }),
    foreign: async (o) => ({ triggerId: await webhookIn(o) }),
  },
  "trigger.takeOver": {
    access: "editor",
    input: async (fx) => ({ triggerId: await webhookIn(fx) }),
    foreign: async (o) => ({ triggerId: await webhookIn(o) }),
  },
  "trigger.rotateSecret": {
    access: "editor",
    input: async (fx) => ({ triggerId: await webhookIn(fx), graceMinutes: 5 }),
    foreign: async (o) => ({ triggerId: await webhookIn(o), graceMinutes: 5 }),
  },
  "trigger.emitEvent": { access: "editor", input: () => ({ name: "test.event", data: {} }) },
  // Any member manages personal tokens (capped at their role); admins list and revoke all.
  "apiToken.list": { access: "viewer" },
  "apiToken.create": { access: "viewer", input: () => ({ name: "t", role: "viewer" }) },
  "apiToken.revoke": {
    access: "viewer",
    input: async (fx, role) => ({
      tokenId: (await createApiToken({ ctx: fx.ctx(role), input: { name: "t", role: "viewer" } }))
        .id,
    }),
    foreign: async (other) => ({
      tokenId: (
        await createApiToken({ ctx: other.ctx("owner"), input: { name: "t", role: "viewer" } })
      ).id,
    }),
  },
  "proposal.list": { access: "viewer" },
  "proposal.counts": { access: "viewer" },
  "proposal.get": {
    access: "viewer",
    input: async (fx) => ({ proposalId: await proposalIn(fx) }),
    foreign: async (o) => ({ proposalId: await proposalIn(o) }),
  },
  "proposal.inflightImpact": {
    access: "viewer",
    input: async (fx) => ({ proposalId: await proposalIn(fx) }),
    foreign: async (o) => ({ proposalId: await proposalIn(o) }),
  },
  "proposal.create": {
    access: "editor",
    input: async (fx) => ({
      workflowId: await proposableWf(fx),
      baseHash: "current",
      summary: "change",
      definition: proposalDef(3),
    }),
    foreign: async (o) => ({
      workflowId: await proposableWf(o),
      baseHash: "current",
      summary: "hijack",
      definition: proposalDef(3),
    }),
  },
  "proposal.review": { access: "approver", input: reviewInput, foreign: reviewInput },
  // The service admits admins and the workflow's creator with editor: editors get their own workflow.
  "proposal.applyChange": {
    access: "editor",
    input: async (fx, role) => ({
      proposalId: await proposalIn(fx, { state: "approved", creator: role }),
    }),
    foreign: async (o) => ({ proposalId: await proposalIn(o, { state: "approved" }) }),
  },
  "proposal.rollback": {
    access: "editor",
    input: async (fx) => ({ proposalId: await proposalIn(fx, { state: "applied" }) }),
    foreign: async (o) => ({ proposalId: await proposalIn(o, { state: "applied" }) }),
  },
  "proposal.setSelfModification": {
    access: "admin",
    input: async (fx) => ({ workflowId: await proposableWf(fx), enabled: false }),
    foreign: async (o) => ({ workflowId: await proposableWf(o), enabled: false }),
  },
  "proposal.retryDryRun": {
    access: "editor",
    input: async (fx) => ({ proposalId: await proposalIn(fx) }),
    foreign: async (o) => ({ proposalId: await proposalIn(o) }),
  },
  // `direction` is what useInfiniteQuery adds to the input; the procedure must accept it.
  "audit.list": {
    access: "admin",
    input: () => ({ action: "secret.*", limit: 5, direction: "forward" }),
  },
  // Reads the caller's workspace only (isolation: server/services/history tests).
  "audit.verify": { access: "admin" },
  "proposalRules.get": { access: "viewer" },
  // A warning only: later rows still create and review proposals in this workspace.
  "proposalRules.update": {
    access: "admin",
    input: () => ({
      rules: [{ name: "Note every change", expression: "true", effect: "warn" }],
      allowedDomains: [],
    }),
  },
  "proposalRules.preview": {
    access: "admin",
    input: () => ({
      rules: [{ name: "Risky", expression: 'change.risk == "high"', effect: "warn" }],
      allowedDomains: [],
    }),
  },
  // Reads the caller's workspace only (isolation: server/services/operations tests).
  "alert.workspace": { access: "viewer" },
  "alert.updateWorkspace": {
    access: "admin",
    input: () => ({ channels: [], windowMinutes: 60, gateAgeHours: 24, rejectThreshold: 20 }),
  },
  "alert.workflow": {
    access: "viewer",
    input: async (fx) => ({ workflowId: await wf(fx) }),
    foreign: async (o) => ({ workflowId: await wf(o) }),
  },
  "alert.updateWorkflow": {
    access: "editor",
    input: async (fx) => ({ workflowId: await wf(fx), channels: null, errorWorkflowId: null }),
    foreign: async (o) => ({ workflowId: await wf(o), channels: null, errorWorkflowId: null }),
  },
  "alert.list": { access: "viewer", input: () => ({}) },
  "operations.overview": { access: "admin", input: () => ({ range: "7d" }) },
  "twoFactor.status": { access: "authed" },
  "twoFactor.beginEnrolment": {
    access: "authed",
    input: async (fx, role) => {
      await withPassword(fx, role);
    },
  },
  "twoFactor.confirmEnrolment": {
    access: "authed",
    input: async (fx, role) => ({ code: (await pendingTwoFactorCode(fx, role)).code }),
  },
  "twoFactor.disable": { access: "authed", input: (fx, role) => freshTwoFactorCode(fx, role) },
  "twoFactor.regenerateRecoveryCodes": {
    access: "authed",
    input: (fx, role) => freshTwoFactorCode(fx, role),
  },
  "twoFactor.workspaceRequirement": { access: "viewer" },
  "twoFactor.setWorkspaceRequirement": { access: "owner", input: () => ({ required: true }) },
  "secret.list": { access: "editor" },
  "secret.create": { access: "admin", input: () => ({ name: secretName(), value: "value-1234" }) },
  "secret.update": {
    access: "admin",
    input: async (fx) => ({ name: await seedSecret(fx), value: "new-value-5678" }),
    foreign: async (other) => ({ name: await seedSecret(other), value: "new-value-5678" }),
  },
  "secret.delete": {
    access: "admin",
    input: async (fx) => ({ name: await seedSecret(fx) }),
    foreign: async (other) => ({ name: await seedSecret(other) }),
  },
  "settings.get": { access: "viewer" },
  "settings.updatePolicies": {
    access: "admin",
    input: () => ({
      scriptStepsEnabled: false,
      allowedPrivateHosts: ["10.0.0.0/8"],
      forbiddenStepTypes: ["script"],
    }),
  },
  "settings.updateAdmissionLimits": {
    access: "admin",
    input: () => ({ maxActiveRunsPerUser: 7, maxActiveRunsPerWorkspace: null }),
  },
  "quota.get": { access: "viewer" },
  // Enterprise with a generous override: later rows of the matrix still create workflows and runs.
  "quota.update": {
    access: "admin",
    input: () => ({ plan: "enterprise", overrides: { runsPerMonth: 1_000_000 } }),
  },
  "settings.updateLlm": {
    access: "admin",
    input: () => ({ llm: { baseUrl: "https://llm.example.com/v1", model: "m" } }),
  },
  "settings.updateSmtp": {
    access: "admin",
    input: () => ({
      smtp: { host: "smtp.example.com", port: 587, secure: false, from: "a@example.com" },
    }),
  },
  // Loopback targets are refused by the SSRF guard before any packet is sent: the procedure
  // still answers (ok: false), which is what the matrix checks.
  "settings.testLlm": {
    access: "admin",
    input: () => ({ baseUrl: "http://127.0.0.1:9/v1", model: "m" }),
  },
  "settings.testSmtp": {
    access: "admin",
    input: () => ({ host: "127.0.0.1", port: 9, secure: false, from: "a@example.com" }),
  },
  "settings.updateMcpServers": {
    access: "admin",
    input: () => ({ mcpServers: [{ name: "tools", url: "https://mcp.example.com/mcp" }] }),
  },
  "settings.testMcpServer": {
    access: "admin",
    input: () => ({ name: "tools", url: "http://127.0.0.1:9/mcp" }),
  },
};

function secretName(): string {
  return `S_${Math.random().toString(36).slice(2, 10).toUpperCase()}`;
}

async function seedSecret(fx: WorkspaceFixture): Promise<string> {
  const name = secretName();
  await createSecret({ ctx: fx.ctx("owner"), input: { name, value: "seed-value-1234" } });
  return name;
}

/** Outcomes that are not authorization refusals (the procedure ran its own checks). */
const RAN = new Set(["NOT_FOUND", "CONFLICT", "PRECONDITION_FAILED", "BAD_REQUEST"]);

let t: TestDb;
beforeAll(async () => {
  t = await createTestDb("authz");
});
afterAll(async () => {
  await t?.close();
});

async function call(path: string, ctx: ReturnType<typeof makeCtx>, input: unknown) {
  const caller = createCaller({ svc: ctx }) as unknown as Record<
    string,
    Record<string, (i: unknown) => Promise<unknown>>
  >;
  const [ns, verb] = path.split(".") as [string, string];
  try {
    await caller[ns]![verb]!(input);
    return "ok";
  } catch (e) {
    if (e instanceof TRPCError) return e.code;
    throw e;
  }
}

describe("tRPC authorization matrix", () => {
  it("covers every procedure", () => {
    const procedures = Object.keys(appRouter._def.procedures).sort();
    expect(Object.keys(CASES).sort()).toEqual(procedures);
  });

  for (const [path, c] of Object.entries(CASES)) {
    describe(path, () => {
      it("anonymous", async () => {
        const fx = await createWorkspaceFixture(t.db, "Anon");
        const outcome = await call(
          path,
          makeCtx(t.db, { type: "anonymous" }),
          await c.input?.(fx, "viewer"),
        );
        if (c.access === "public") expect(outcome === "ok" || RAN.has(outcome)).toBe(true);
        else expect(outcome).toBe("UNAUTHORIZED");
      });

      for (const role of ROLES) {
        it(role, async () => {
          const fx = await createWorkspaceFixture(t.db, "Ws");
          const outcome = await call(path, fx.ctx(role), await c.input?.(fx, role));
          const allowed = c.access === "public" || c.access === "authed" || hasRole(role, c.access);
          if (!allowed) expect(outcome).toBe("FORBIDDEN");
          else if (path === "invitation.accept") expect(outcome).toBe("NOT_FOUND");
          else expect(outcome).toBe("ok");
        });
      }

      if (c.foreign) {
        it("cannot reach another workspace's resources", async () => {
          const mine = await createWorkspaceFixture(t.db, "Mine");
          const other = await createWorkspaceFixture(t.db, "Other");
          const outcome = await call(path, mine.ctx("owner"), await c.foreign!(other));
          expect(["NOT_FOUND", "FORBIDDEN"]).toContain(outcome);
        });
      }
    });
  }

  it("lists never include another workspace's data", async () => {
    const mine = await createWorkspaceFixture(t.db, "ListMine");
    const other = await createWorkspaceFixture(t.db, "ListOther");
    await createApiToken({
      ctx: other.ctx("owner"),
      input: { name: "secret-other", role: "viewer" },
    });
    await createInvitation({
      ctx: other.ctx("owner"),
      input: { email: "other-invite@example.com", role: "viewer" },
    });
    await createSecret({
      ctx: other.ctx("owner"),
      input: { name: "OTHER_WS_SECRET", value: "other-secret-value" },
    });
    const foreignSessions = [await sessionOf(other, "owner"), await sessionOf(mine, "viewer")];
    const caller = createCaller({ svc: mine.ctx("owner") });
    const all = JSON.stringify([
      await caller.session.list(),
      await caller.member.list(),
      await caller.apiToken.list(),
      await caller.invitation.list(),
      await caller.workspace.list(),
      await caller.secret.list(),
      await caller.settings.get(),
    ]);
    expect(all).not.toContain(other.workspaceId);
    expect(all).not.toContain("secret-other");
    expect(all).not.toContain("other-invite@example.com");
    expect(all).not.toContain("OTHER_WS_SECRET");
    expect(all).not.toContain("other-secret-value");
    for (const uid of Object.values(other.members)) expect(all).not.toContain(uid);
    // Sessions are per user: not even a co-member's shows.
    for (const sid of foreignSessions) expect(all).not.toContain(sid);
  });
});
