import { and, eq, sql } from "drizzle-orm";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { auditEvents, workspaces } from "@/db/schema";
import { createTestDb, type TestDb } from "@/db/testing";
import type { WorkspacePolicy } from "@/server/services/step-execution/actions/types";
import { ForbiddenError, ValidationError } from "../../errors";
import { startFakeOpenAi, type FakeOpenAi } from "../../testing/fake-openai";
import {
  createWorkspaceFixture,
  testConfig,
  testKeys,
  type WorkspaceFixture,
} from "../../testing/harness";
import { admissionLimits } from "../runs/admission-limits";
import { updateAdmissionLimits } from "./update-admission-limits";
import { startSmtpServer, type LocalSmtp } from "../../testing/local-smtp";
import { createSecret } from "../secrets/create-secret";
import { MissingSecretsError } from "../secrets/resolve-secrets";
import { getWorkspaceSettings } from "./get-workspace-settings";
import { loadWorkspaceIntegrations } from "./load-workspace-integrations";
import { loadWorkspacePolicy } from "./load-workspace-policy";
import { testLlmIntegration } from "./test-llm-integration";
import { testSmtpIntegration } from "./test-smtp-integration";
import { updateLlmIntegration } from "./update-llm-integration";
import { updateSmtpIntegration } from "./update-smtp-integration";
import { updateWorkspacePolicies } from "./update-workspace-policies";
import { deleteSecret } from "../secrets/delete-secret";
import { loadMcpServer } from "./load-mcp-server";
import { testMcpServer } from "./test-mcp-server";
import { updateMcpServers } from "./update-mcp-servers";

let t: TestDb;
let openai: FakeOpenAi;
let smtp: LocalSmtp;
const API_KEY = "sk-fake-openai-key-000111";

beforeAll(async () => {
  t = await createTestDb("settings");
  openai = await startFakeOpenAi(() => {
    const auth = openai.requests.at(-1)?.headers.authorization;
    if (auth !== `Bearer ${API_KEY}`) {
      // Some servers echo the key they were given: the test result must not.
      return {
        status: 401,
        body: { error: { message: `Incorrect API key provided: ${auth?.slice(7)}` } },
      };
    }
    return { content: "OK", usage: [7, 1] };
  });
  smtp = await startSmtpServer({ user: "mailer", password: "smtp-secret-pass" });
});
afterAll(async () => {
  await openai?.close();
  await smtp?.close();
  await t?.close();
});

async function audits(fx: WorkspaceFixture, action: string) {
  return t.db
    .select()
    .from(auditEvents)
    .where(and(eq(auditEvents.workspaceId, fx.workspaceId), eq(auditEvents.action, action)));
}

describe("workspace policies", () => {
  it("defaults to scripts off and empty lists, readable by every member", async () => {
    const fx = await createWorkspaceFixture(t.db, "PolicyDefaults");
    for (const role of ["viewer", "approver", "editor"] as const) {
      const s = await getWorkspaceSettings({ ctx: fx.ctx(role) });
      expect(s).toEqual({
        policies: {
          scriptStepsEnabled: false,
          scriptNetwork: "none",
          allowedPrivateHosts: [],
          forbiddenStepTypes: [],
          requiredApprovals: [],
          allowSelfApproval: false,
          proposalDryRunRuns: 10,
          requireVerifiedToApply: false,
        },
        llm: null,
        smtp: null,
        mcpServers: [],
        missingSecrets: [],
        canEdit: false,
        admission: expect.objectContaining({
          maxActiveRunsPerUser: expect.objectContaining({ set: null }),
        }),
      });
    }
    expect((await getWorkspaceSettings({ ctx: fx.ctx("admin") })).canEdit).toBe(true);
    const policy: WorkspacePolicy = await loadWorkspacePolicy(t.db, fx.workspaceId);
    expect(policy).toEqual({
      scriptStepsEnabled: false,
      scriptNetwork: "none",
      allowedPrivateHosts: [],
      forbiddenStepTypes: [],
      requiredApprovals: [],
      allowSelfApproval: false,
      proposalDryRunRuns: 10,
      requireVerifiedToApply: false,
    });
  });

  it("admins update them (normalised), other settings keys survive, the audit has before and after", async () => {
    const fx = await createWorkspaceFixture(t.db, "PolicyUpdate");
    await t.db
      .update(workspaces)
      .set({ settings: { maxActiveRunsPerUser: 3, somethingElse: { x: 1 } } })
      .where(eq(workspaces.id, fx.workspaceId));
    const after = await updateWorkspacePolicies({
      ctx: fx.ctx("admin"),
      input: {
        scriptStepsEnabled: true,
        scriptNetwork: "allowed",
        allowedPrivateHosts: [" Build.Internal ", "10.0.0.0/8", "::1"],
        forbiddenStepTypes: ["agent"],
        requiredApprovals: ["http_write", "script"],
        allowSelfApproval: true,
        proposalDryRunRuns: 25,
      },
    });
    expect(after.allowedPrivateHosts).toEqual(["build.internal", "10.0.0.0/8", "::1"]);
    const [row] = await t.db
      .select({ settings: workspaces.settings })
      .from(workspaces)
      .where(eq(workspaces.id, fx.workspaceId));
    expect(row!.settings).toEqual({
      maxActiveRunsPerUser: 3,
      somethingElse: { x: 1 },
      scriptStepsEnabled: true,
      scriptNetwork: "allowed",
      allowedPrivateHosts: ["build.internal", "10.0.0.0/8", "::1"],
      forbiddenStepTypes: ["agent"],
      requiredApprovals: ["http_write", "script"],
      allowSelfApproval: true,
      proposalDryRunRuns: 25,
      requireVerifiedToApply: false,
    });
    expect(await loadWorkspacePolicy(t.db, fx.workspaceId)).toEqual({
      scriptStepsEnabled: true,
      scriptNetwork: "allowed",
      allowedPrivateHosts: ["build.internal", "10.0.0.0/8", "::1"],
      forbiddenStepTypes: ["agent"],
      requiredApprovals: ["http_write", "script"],
      allowSelfApproval: true,
      proposalDryRunRuns: 25,
      requireVerifiedToApply: false,
    });
    const [audit] = await audits(fx, "workspace.policies_updated");
    expect(audit!.data).toEqual({
      before: {
        scriptStepsEnabled: false,
        scriptNetwork: "none",
        allowedPrivateHosts: [],
        forbiddenStepTypes: [],
        requiredApprovals: [],
        allowSelfApproval: false,
        proposalDryRunRuns: 10,
        requireVerifiedToApply: false,
      },
      after: {
        scriptStepsEnabled: true,
        scriptNetwork: "allowed",
        allowedPrivateHosts: ["build.internal", "10.0.0.0/8", "::1"],
        forbiddenStepTypes: ["agent"],
        requiredApprovals: ["http_write", "script"],
        allowSelfApproval: true,
        proposalDryRunRuns: 25,
        requireVerifiedToApply: false,
      },
    });
  });

  it("refuses bad entries and non-admins", async () => {
    const fx = await createWorkspaceFixture(t.db, "PolicyBad");
    const base = { scriptStepsEnabled: false, allowedPrivateHosts: [], forbiddenStepTypes: [] };
    for (const input of [
      { ...base, allowedPrivateHosts: ["10.0.0.0/33"] },
      { ...base, allowedPrivateHosts: ["http://x"] },
      { ...base, allowedPrivateHosts: ["a.internal", "A.internal"] },
      { ...base, forbiddenStepTypes: ["teleport"] },
      { ...base, proposalDryRunRuns: 0 },
      { ...base, allowSelfApproval: "yes" },
      { ...base, scriptNetwork: "open" },
      { ...base, requiredApprovals: ["approval"] },
      { ...base, requiredApprovals: ["teleport"] },
      { ...base, requiredApprovals: ["notify", "notify"] },
    ]) {
      await expect(updateWorkspacePolicies({ ctx: fx.ctx("owner"), input })).rejects.toBeInstanceOf(
        ValidationError,
      );
    }
    await expect(
      updateWorkspacePolicies({ ctx: fx.ctx("editor"), input: base }),
    ).rejects.toBeInstanceOf(ForbiddenError);
  });

  it("falls back per field, restrictively, when stored settings are malformed", async () => {
    const fx = await createWorkspaceFixture(t.db, "PolicyMalformed");
    await t.db
      .update(workspaces)
      .set({
        settings: {
          scriptStepsEnabled: "yes",
          scriptNetwork: "yes",
          allowedPrivateHosts: ["10.0.0.0/8"],
          forbiddenStepTypes: ["script", "teleport", "script"],
          requiredApprovals: ["notify", "teleport", "notify"],
          allowSelfApproval: "true",
          proposalDryRunRuns: 1e6,
          llm: { model: 5 },
        },
      })
      .where(eq(workspaces.id, fx.workspaceId));
    const s = await getWorkspaceSettings({ ctx: fx.ctx("viewer") });
    expect(s.policies).toEqual({
      scriptStepsEnabled: false,
      scriptNetwork: "none",
      allowedPrivateHosts: ["10.0.0.0/8"],
      // An unknown entry does not wipe the known ones (fail closed).
      forbiddenStepTypes: ["script"],
      requiredApprovals: ["notify"],
      allowSelfApproval: false,
      proposalDryRunRuns: 10,
      requireVerifiedToApply: false,
    });
    expect(s.llm).toBeNull();
  });
});

describe("admission limits", () => {
  it("admins set them (null = server default), everyone sees the effective values, admission uses them, audited", async () => {
    const fx = await createWorkspaceFixture(t.db, "Admission");
    const before = await getWorkspaceSettings({ ctx: fx.ctx("viewer") });
    expect(before.admission).toEqual({
      maxActiveRunsPerUser: {
        set: null,
        default: testConfig.maxActiveRunsPerUser,
        effective: testConfig.maxActiveRunsPerUser,
      },
      maxActiveRunsPerWorkspace: {
        set: null,
        default: testConfig.maxActiveRunsPerWorkspace,
        effective: testConfig.maxActiveRunsPerWorkspace,
      },
    });
    await expect(
      updateAdmissionLimits({
        ctx: fx.ctx("editor"),
        input: { maxActiveRunsPerUser: 7, maxActiveRunsPerWorkspace: null },
      }),
    ).rejects.toBeInstanceOf(ForbiddenError);
    const bad = await updateAdmissionLimits({
      ctx: fx.ctx("admin"),
      input: { maxActiveRunsPerUser: 0, maxActiveRunsPerWorkspace: null },
    }).catch((e: unknown) => e);
    expect(bad).toBeInstanceOf(ValidationError);
    expect((bad as ValidationError).issues[0]?.path).toEqual(["maxActiveRunsPerUser"]);

    const view = await updateAdmissionLimits({
      ctx: fx.ctx("admin"),
      input: { maxActiveRunsPerUser: 7, maxActiveRunsPerWorkspace: null },
    });
    expect(view.maxActiveRunsPerUser).toMatchObject({ set: 7, effective: 7 });
    expect((await getWorkspaceSettings({ ctx: fx.ctx("viewer") })).admission).toEqual(view);
    expect(await admissionLimits(t.db, fx.workspaceId, testConfig)).toEqual({
      perUser: 7,
      perWorkspace: testConfig.maxActiveRunsPerWorkspace,
    });
    const [audit] = await t.db
      .select()
      .from(auditEvents)
      .where(
        and(
          eq(auditEvents.workspaceId, fx.workspaceId),
          eq(auditEvents.action, "workspace.admission_limits_updated"),
        ),
      );
    expect(audit!.data).toEqual({
      before: { maxActiveRunsPerUser: null, maxActiveRunsPerWorkspace: null },
      after: { maxActiveRunsPerUser: 7, maxActiveRunsPerWorkspace: null },
    });
  });
});

describe("integrations", () => {
  it("saves an LLM endpoint that names an existing secret, and the engine gets the key resolved", async () => {
    const fx = await createWorkspaceFixture(t.db, "Llm");
    const llm = { baseUrl: openai.baseUrl, model: "fake-model", apiKeySecret: "OPENAI_KEY" };
    await expect(updateLlmIntegration({ ctx: fx.ctx("admin"), input: { llm } })).rejects.toThrow(
      /Secret OPENAI_KEY does not exist/,
    );
    await createSecret({ ctx: fx.ctx("admin"), input: { name: "OPENAI_KEY", value: API_KEY } });
    await updateLlmIntegration({ ctx: fx.ctx("admin"), input: { llm } });
    expect((await getWorkspaceSettings({ ctx: fx.ctx("viewer") })).llm).toEqual(llm);
    const loaded = await loadWorkspaceIntegrations(t.db, testKeys, fx.workspaceId, ["llm"]);
    expect(loaded).toEqual({
      llm: { baseUrl: openai.baseUrl, model: "fake-model", apiKey: API_KEY },
      secretValues: [API_KEY],
    });
    const [audit] = await audits(fx, "workspace.llm_updated");
    expect(audit!.data).toEqual({ before: null, after: llm });
    expect(JSON.stringify(audit)).not.toContain(API_KEY);
    await updateLlmIntegration({ ctx: fx.ctx("admin"), input: { llm: null } });
    expect((await getWorkspaceSettings({ ctx: fx.ctx("viewer") })).llm).toBeNull();
    await expect(
      updateLlmIntegration({ ctx: fx.ctx("editor"), input: { llm } }),
    ).rejects.toBeInstanceOf(ForbiddenError);
  });

  it("saves SMTP settings and loads the password for the engine; a vanished secret is reported", async () => {
    const fx = await createWorkspaceFixture(t.db, "Smtp");
    await createSecret({
      ctx: fx.ctx("admin"),
      input: { name: "SMTP_PASSWORD", value: "smtp-secret-pass" },
    });
    const settings = {
      host: "Mail.Example.com",
      port: 465,
      secure: true,
      user: "mailer",
      passwordSecret: "SMTP_PASSWORD",
      from: "Ops <ops@example.com>",
    };
    const saved = await updateSmtpIntegration({ ctx: fx.ctx("owner"), input: { smtp: settings } });
    expect(saved.smtp?.host).toBe("mail.example.com");
    const loaded = await loadWorkspaceIntegrations(t.db, testKeys, fx.workspaceId);
    expect(loaded.smtp).toEqual({
      host: "mail.example.com",
      port: 465,
      secure: true,
      user: "mailer",
      password: "smtp-secret-pass",
      from: "Ops <ops@example.com>",
    });
    expect(loaded.llm).toBeUndefined();
    await expect(
      updateSmtpIntegration({
        ctx: fx.ctx("owner"),
        input: { smtp: { ...settings, user: undefined } },
      }),
    ).rejects.toThrow(/A password needs a user name/);
    // A row removed behind the service's back (deleteSecret refuses while it is in use).
    await t.db.execute(
      sql`delete from secrets where workspace_id = ${fx.workspaceId} and name = 'SMTP_PASSWORD'`,
    );
    expect((await getWorkspaceSettings({ ctx: fx.ctx("viewer") })).missingSecrets).toEqual([
      "SMTP_PASSWORD",
    ]);
    await expect(
      loadWorkspaceIntegrations(t.db, testKeys, fx.workspaceId, ["smtp"]),
    ).rejects.toBeInstanceOf(MissingSecretsError);
    // A step that only needs the LLM is not blocked by a broken SMTP setup.
    expect(await loadWorkspaceIntegrations(t.db, testKeys, fx.workspaceId, ["llm"])).toEqual({
      secretValues: [],
    });
  });

  it("saves MCP servers (unique names, existing secrets), loads one with its key for the engine, audited", async () => {
    const fx = await createWorkspaceFixture(t.db, "Mcp");
    const github = { name: "github", url: "https://mcp.example.com/mcp", apiKeySecret: "GH_KEY" };
    await expect(
      updateMcpServers({ ctx: fx.ctx("admin"), input: { mcpServers: [github] } }),
    ).rejects.toThrow(/Secret GH_KEY does not exist/);
    await createSecret({ ctx: fx.ctx("admin"), input: { name: "GH_KEY", value: "gh-key-12345" } });
    const dup = await updateMcpServers({
      ctx: fx.ctx("admin"),
      input: { mcpServers: [github, { ...github, apiKeySecret: undefined }] },
    }).catch((e: unknown) => e);
    expect(dup).toBeInstanceOf(ValidationError);
    expect((dup as ValidationError).message).toMatch(/already named github/);
    await expect(
      updateMcpServers({ ctx: fx.ctx("editor"), input: { mcpServers: [github] } }),
    ).rejects.toBeInstanceOf(ForbiddenError);
    await updateMcpServers({ ctx: fx.ctx("admin"), input: { mcpServers: [github] } });
    expect((await getWorkspaceSettings({ ctx: fx.ctx("viewer") })).mcpServers).toEqual([github]);
    expect(await loadMcpServer(t.db, testKeys, fx.workspaceId, "github")).toEqual({
      server: {
        name: "github",
        url: github.url,
        headers: { authorization: "Bearer gh-key-12345" },
      },
      secretValues: ["gh-key-12345"],
    });
    expect(await loadMcpServer(t.db, testKeys, fx.workspaceId, "gitlab")).toBeNull();
    // The secret is in use: deleting it is refused, naming the server.
    await expect(deleteSecret({ ctx: fx.ctx("admin"), input: { name: "GH_KEY" } })).rejects.toThrow(
      /used by the MCP server github integration/,
    );
    const [audit] = await audits(fx, "workspace.mcp_servers_updated");
    expect(audit!.data).toEqual({ before: [], after: [github] });
    expect(JSON.stringify(audit)).not.toContain("gh-key-12345");
    // Testing a loopback server without an allowed private host: refused by the SSRF guard.
    const refused = await testMcpServer({
      ctx: fx.ctx("admin"),
      input: { name: "local", url: "http://127.0.0.1:9/mcp" },
    });
    expect(refused.ok).toBe(false);
    expect(refused.message).toMatch(/127\.0\.0\.1/);
  });

  it("tests an LLM endpoint for real, through the SSRF guard, and reports the exact error without the key", async () => {
    const fx = await createWorkspaceFixture(t.db, "LlmTest");
    await createSecret({ ctx: fx.ctx("admin"), input: { name: "GOOD_KEY", value: API_KEY } });
    await createSecret({
      ctx: fx.ctx("admin"),
      input: { name: "BAD_KEY", value: "sk-wrong-key-424242" },
    });
    const form = { baseUrl: openai.baseUrl, model: "fake-model", apiKeySecret: "GOOD_KEY" };
    const blocked = await testLlmIntegration({ ctx: fx.ctx("admin"), input: form });
    expect(blocked.ok).toBe(false);
    expect(blocked.message).toMatch(/loopback address/);
    await updateWorkspacePolicies({
      ctx: fx.ctx("admin"),
      input: {
        scriptStepsEnabled: false,
        allowedPrivateHosts: ["127.0.0.1"],
        forbiddenStepTypes: [],
      },
    });
    const ok = await testLlmIntegration({ ctx: fx.ctx("admin"), input: form });
    expect(ok).toMatchObject({
      ok: true,
      message: expect.stringMatching(/^Model fake-model answered in \d+ ms \(8 tokens\): "OK"$/),
    });
    const bad = await testLlmIntegration({
      ctx: fx.ctx("admin"),
      input: { ...form, apiKeySecret: "BAD_KEY" },
    });
    expect(bad.ok).toBe(false);
    expect(bad.message).toMatch(/answered 401: Incorrect API key provided: \[REDACTED\]/);
    expect(bad.message).not.toContain("sk-wrong-key-424242");
    await expect(testLlmIntegration({ ctx: fx.ctx("editor"), input: form })).rejects.toBeInstanceOf(
      ForbiddenError,
    );
  });

  it("tests SMTP for real: login succeeds, or the exact refusal comes back", async () => {
    const fx = await createWorkspaceFixture(t.db, "SmtpTest");
    await createSecret({
      ctx: fx.ctx("admin"),
      input: { name: "SMTP_PASSWORD", value: "smtp-secret-pass" },
    });
    await createSecret({
      ctx: fx.ctx("admin"),
      input: { name: "WRONG_PASSWORD", value: "not-the-password" },
    });
    await updateWorkspacePolicies({
      ctx: fx.ctx("admin"),
      input: {
        scriptStepsEnabled: false,
        allowedPrivateHosts: ["127.0.0.1"],
        forbiddenStepTypes: [],
      },
    });
    const form = {
      host: "127.0.0.1",
      port: smtp.port,
      secure: false,
      user: "mailer",
      passwordSecret: "SMTP_PASSWORD",
      from: "ops@example.com",
    };
    expect(await testSmtpIntegration({ ctx: fx.ctx("admin"), input: form })).toMatchObject({
      ok: true,
      message: `Connected to 127.0.0.1:${smtp.port} and logged in as mailer`,
    });
    const wrong = await testSmtpIntegration({
      ctx: fx.ctx("admin"),
      input: { ...form, passwordSecret: "WRONG_PASSWORD" },
    });
    expect(wrong.ok).toBe(false);
    expect(wrong.message).toMatch(/refused the login/);
    expect(smtp.messages).toHaveLength(0);
  });
});
