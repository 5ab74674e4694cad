/**
 * The MCP server at /api/mcp, driven by the official SDK client whose transport calls the route
 * handler in-process (a custom fetch), against a real database and the real engine: tools and
 * resources, token authentication, role rules, runs that finish or stop at a gate, approving,
 * cancelling, and proposals authored by the MCP client.
 */
import { afterAll, afterEach, beforeAll, describe, expect, it } from "vitest";
import { startRunHarness, type RunHarness } from "@/server/testing/run-harness";
import type { Role } from "@/lib/schemas/roles";
import { createApiToken } from "@/server/services/api-tokens/create-api-token";
import { getProposal } from "@/server/services/proposals/get-proposal";
import { createWorkspaceFixture, type WorkspaceFixture } from "@/server/testing/harness";
import * as route from "./route";
import { call, errorText, mcpClients, ok } from "./test-client";

let e: RunHarness;
let other: WorkspaceFixture;
/** Tokens of the harness workspace, each made by `by` with `role`. */
const tokens = {} as Record<"viewer" | "approver" | "editor" | "ownerApprover" | "foreign", string>;
const clients = mcpClients();
const connect = clients.connect;

async function token(fx: WorkspaceFixture, by: Role, role: Role) {
  return (await createApiToken({ ctx: fx.ctx(by), input: { name: `mcp ${role}`, role } })).token;
}

beforeAll(async () => {
  e = await startRunHarness("mcp");
  other = await createWorkspaceFixture(e.db.db, "Other");
  tokens.viewer = await token(e.ws, "admin", "viewer");
  tokens.approver = await token(e.ws, "admin", "approver");
  tokens.editor = await token(e.ws, "admin", "editor");
  // Acts for a different person than the editor token's creator (who starts the runs).
  tokens.ownerApprover = await token(e.ws, "owner", "approver");
  tokens.foreign = await token(other, "owner", "owner");
});
afterEach(async () => {
  await clients.closeAll();
});
afterAll(async () => {
  await e?.close();
});

const transformDef = (name: string) => ({
  schemaVersion: 1,
  name,
  constraints: { allowSelfModification: true },
  inputs: { who: { type: "string", default: "world" } },
  steps: [{ id: "greet", type: "transform", config: { value: "hello {{ input.who }}" } }],
  output: "{{ steps.greet.output.data }}",
});
const gateDef = {
  schemaVersion: 1,
  name: "Gated",
  steps: [
    {
      id: "ask",
      type: "approval",
      config: { prompt: "Ship {{ input.version }}?", items: ["release {{ input.version }}"] },
    },
    { id: "ship", type: "transform", config: { value: "shipped {{ input.version }}" } },
  ],
  edges: [{ from: "ask", port: "approved", to: "ship" }],
  inputs: { version: { type: "string", default: "1.0.0" } },
  output: "{{ steps.ship.output.data }}",
};

const TOOLS = [
  "approve_run",
  "cancel_run",
  "complete_task",
  "current_tasks",
  "diff_runs",
  "fail_task",
  "finish_recording",
  "get_proposal_impact",
  "get_proposal_replay",
  "get_proposal_rules",
  "get_run",
  "get_workflow",
  "list_proposals",
  "list_workflows",
  "preview_proposal_rules",
  "preview_rerun",
  "propose_change",
  "record_step",
  "run_workflow",
  "save_as_workflow",
  "start_recording",
  "update_proposal_rules",
  "validate_workflow",
  "verify_history",
];

describe("MCP server: connection and authentication", () => {
  it("lists the tools with input schemas, and the resource templates", async () => {
    const client = await connect(tokens.viewer);
    expect(client.getServerVersion()?.name).toBe("sluice");
    expect(client.getInstructions()).toMatch(/run_workflow/);
    const { tools } = await client.listTools();
    expect(tools.map((t) => t.name).sort()).toEqual(TOOLS);
    const run = tools.find((t) => t.name === "run_workflow")!;
    // `workflow` or `definition` (an inline run): the tool checks that exactly one is given.
    expect(run.inputSchema.required ?? []).not.toContain("workflow");
    expect(Object.keys(run.inputSchema.properties ?? {})).toEqual(
      expect.arrayContaining(["workflow", "definition", "input", "waitMs", "idempotencyKey"]),
    );
    expect(run.description).toMatch(/editor role/);
    expect(tools.find((t) => t.name === "get_run")!.annotations?.readOnlyHint).toBe(true);
    const { resourceTemplates } = await client.listResourceTemplates();
    expect(resourceTemplates.map((t) => t.uriTemplate).sort()).toEqual([
      "sluice://runs/{id}",
      "sluice://workflows/{id}",
    ]);
  });

  it("refuses to connect without a token or with a bad one (401 JSON), and GET/DELETE are 405", async () => {
    for (const bearer of [undefined, "slu_not-a-real-token"])
      await expect(connect(bearer)).rejects.toMatchObject({
        code: 401,
        message: expect.stringMatching(/A valid API token is required/),
      });
    const res = await route.POST(
      new Request("http://localhost/api/mcp", {
        method: "POST",
        headers: {
          "content-type": "application/json",
          accept: "application/json, text/event-stream",
        },
        body: JSON.stringify({ jsonrpc: "2.0", id: 1, method: "tools/list" }),
      }),
    );
    expect(res.status).toBe(401);
    expect(res.headers.get("www-authenticate")).toMatch(/^Bearer/);
    expect((await res.json()).error).toMatchObject({ code: "unauthorized" });
    for (const res of await Promise.all([route.GET(), route.DELETE()])) {
      expect(res.status).toBe(405);
      expect(res.headers.get("allow")).toBe("POST");
      expect((await res.json()).error.code).toBe("method_not_allowed");
    }
  });

  it("a token of another workspace sees none of this workspace's workflows or runs", async () => {
    const wf = await e.workflow(transformDef("Private"));
    const runId = await e.start(wf);
    const foreign = await connect(tokens.foreign);
    expect(errorText(await call(foreign, "get_workflow", { workflow: wf }))).toMatch(
      /^not_found: Workflow ".*" was not found/,
    );
    expect(errorText(await call(foreign, "get_run", { runId }))).toMatch(/^not_found: Run/);
    const listed = await ok<{ items: { id: string }[] }>(foreign, "list_workflows");
    expect(listed.items.map((w) => w.id)).not.toContain(wf);
    await expect(foreign.readResource({ uri: `sluice://workflows/${wf}` })).rejects.toThrow(
      /was not found/,
    );
  });
});

describe("MCP server: workflows", () => {
  it("list_workflows, get_workflow by id and by slug, and the definition resource", async () => {
    const wf = await e.workflow(transformDef("Greeter"));
    const client = await connect(tokens.viewer);
    const listed = await ok<{ items: { id: string; slug: string }[] }>(client, "list_workflows", {
      search: "Greeter",
    });
    const item = listed.items.find((w) => w.id === wf)!;
    expect(item).toBeDefined();
    const byId = await ok<{ name: string; published: { hash: string; definition: unknown } }>(
      client,
      "get_workflow",
      { workflow: wf },
    );
    expect(byId.name).toBe("Greeter");
    expect(byId.published.hash).toMatch(/^sha256:/);
    expect(byId.published.definition).toMatchObject({ steps: [{ id: "greet" }] });
    const bySlug = await ok<{ id: string }>(client, "get_workflow", { workflow: item.slug });
    expect(bySlug.id).toBe(wf);

    const { resources } = await client.listResources();
    expect(resources.map((r) => r.uri)).toContain(`sluice://workflows/${wf}`);
    const read = await client.readResource({ uri: `sluice://workflows/${wf}` });
    const content = read.contents[0] as { mimeType: string; text: string };
    expect(content.mimeType).toBe("application/json");
    expect(JSON.parse(content.text)).toMatchObject({ name: "Greeter", steps: [{ id: "greet" }] });
  });

  it("validate_workflow answers ok with the hash, or every issue with its path", async () => {
    const client = await connect(tokens.viewer);
    const good = await ok<{ ok: boolean; hash: string }>(client, "validate_workflow", {
      definition: transformDef("V"),
    });
    expect(good).toMatchObject({ ok: true, hash: expect.stringMatching(/^sha256:/) });
    const bad = await ok<{ ok: boolean; issues: { path: unknown[]; severity: string }[] }>(
      client,
      "validate_workflow",
      {
        definition: {
          schemaVersion: 1,
          name: "V",
          steps: [{ id: "a", type: "transform", config: { value: 1 } }],
          edges: [{ from: "a", to: "nowhere" }],
        },
      },
    );
    expect(bad.ok).toBe(false);
    expect(
      bad.issues.some((i) => i.severity === "error" && i.path.join(".") === "edges.0.to"),
    ).toBe(true);
  });

  it("invalid arguments are tool errors naming the field", async () => {
    const client = await connect(tokens.editor);
    const missing = errorText(await call(client, "validate_workflow", {}));
    expect(missing).toMatch(/definition/);
    const wrongType = errorText(await call(client, "run_workflow", { workflow: "x", waitMs: -5 }));
    expect(wrongType).toMatch(/waitMs/);
    const tooLong = errorText(
      await call(client, "run_workflow", { workflow: "x", waitMs: 3_600_000 }),
    );
    expect(tooLong).toMatch(/waitMs/);
  });
});

describe("MCP server: runs", () => {
  it("run_workflow waits for a run that completes and answers the envelope", async () => {
    const wf = await e.workflow(transformDef("Quick"));
    const client = await connect(tokens.editor);
    const env = await ok<Record<string, unknown>>(client, "run_workflow", {
      workflow: wf,
      input: { who: "mcp" },
      waitMs: 20_000,
      idempotencyKey: "quick-1",
    });
    expect(env).toMatchObject({
      ok: true,
      status: "ok",
      runStatus: "completed",
      executionId: expect.stringMatching(/^run_/),
      output: "hello mcp",
      steps: [{ stepId: "greet", status: "completed", output: { data: "hello mcp" } }],
      deduplicated: false,
    });
    expect(env.requiresApproval).toBeUndefined();
    // The same idempotency key answers the same run.
    const again = await ok<{ executionId: string; deduplicated: boolean }>(client, "run_workflow", {
      workflow: wf,
      input: { who: "mcp" },
      idempotencyKey: "quick-1",
    });
    expect(again).toMatchObject({ executionId: env.executionId, deduplicated: true });
    const viaResource = await client.readResource({ uri: `sluice://runs/${env.executionId}` });
    expect(JSON.parse((viaResource.contents[0] as { text: string }).text)).toMatchObject({
      status: "ok",
      output: "hello mcp",
    });
    const { resources } = await client.listResources();
    expect(resources.map((r) => r.uri)).toContain(`sluice://runs/${env.executionId}`);
  });

  it("run_workflow with a definition runs it inline; an invalid one is refused with its path", async () => {
    const client = await connect(tokens.editor);
    const env = await ok<Record<string, unknown>>(client, "run_workflow", {
      definition: transformDef("Unsaved"),
      input: { who: "inline" },
      waitMs: 20_000,
    });
    expect(env).toMatchObject({
      ok: true,
      status: "ok",
      workflowId: null,
      version: "inline",
      output: "hello inline",
      deduplicated: false,
    });
    const invalid = errorText(
      await call(client, "run_workflow", {
        definition: { schemaVersion: 1, name: "Bad", steps: [{ id: "x", type: "nope" }] },
      }),
    );
    expect(invalid).toMatch(/steps\.0\.type|steps\/0\/type|"type"/);
    expect(
      errorText(await call(client, "run_workflow", { workflow: "x", definition: {} })),
    ).toMatch(/either `workflow` or `definition`/);
    const viewer = await connect(tokens.viewer);
    expect(
      errorText(await call(viewer, "run_workflow", { definition: transformDef("No") })),
    ).toMatch(/^forbidden: run_workflow needs a token with the editor role/);
  });

  it("stops at an approval gate (needs_approval), approve_run resumes it, get_run shows it done", async () => {
    const wf = await e.workflow(gateDef);
    const editor = await connect(tokens.editor);
    const env = await ok<{
      status: string;
      executionId: string;
      requiresApproval: Record<string, unknown>;
    }>(editor, "run_workflow", { workflow: wf, input: { version: "2.0.0" }, waitMs: 20_000 });
    expect(env).toMatchObject({
      ok: true,
      status: "needs_approval",
      runStatus: "waiting",
      requiresApproval: {
        stepId: "ask",
        prompt: "Ship 2.0.0?",
        items: ["release 2.0.0"],
        approvalId: expect.stringMatching(/^apr_/),
        resumeToken: expect.stringMatching(/^wrf_rt_/),
      },
    });
    const runId = env.executionId;

    // Viewers read the run but may not decide; the initiator may not approve their own run.
    const viewer = await connect(tokens.viewer);
    const seen = await ok<{ requiresApproval: { resumeToken: string | null } }>(viewer, "get_run", {
      runId,
    });
    expect(seen.requiresApproval.resumeToken).toBeNull();
    expect(errorText(await call(viewer, "approve_run", { runId, decision: "approve" }))).toMatch(
      /^forbidden: approve_run needs a token with the approver role or higher/,
    );
    const sameUser = await connect(tokens.approver);
    expect(errorText(await call(sameUser, "approve_run", { runId, decision: "approve" }))).toMatch(
      /^forbidden: You started this run/,
    );
    // A token whose resume token is for another gate is refused before anything is decided.
    const approver = await connect(tokens.ownerApprover);
    expect(
      errorText(
        await call(approver, "approve_run", {
          runId,
          decision: "approve",
          resumeToken: String(env.requiresApproval.resumeToken).replace(/.$/, "x"),
        }),
      ),
    ).toMatch(/^precondition_failed: The resume token does not match/);
    // A rejection carries a reason (the same rule as the UI, the API and the CLI).
    expect(
      errorText(
        await call(approver, "approve_run", {
          runId,
          decision: "reject",
          resumeToken: env.requiresApproval.resumeToken,
        }),
      ),
    ).toMatch(/^validation: Give a reason for rejecting/);

    const decided = await ok<{ status: string; output: unknown; decision: { status: string } }>(
      approver,
      "approve_run",
      {
        runId,
        decision: "approve",
        comment: "looks good",
        resumeToken: env.requiresApproval.resumeToken,
        waitMs: 20_000,
      },
    );
    expect(decided).toMatchObject({
      status: "ok",
      output: "shipped 2.0.0",
      decision: { status: "approved" },
    });
    const done = await ok<{ status: string; steps: { stepId: string; status: string }[] }>(
      viewer,
      "get_run",
      { runId },
    );
    expect(done.status).toBe("ok");
    expect(done.steps.map((s) => [s.stepId, s.status])).toEqual([
      ["ask", "completed"],
      ["ship", "completed"],
    ]);
    expect(errorText(await call(approver, "approve_run", { runId, decision: "approve" }))).toMatch(
      /^precondition_failed: Run .* has no open approval gate \(it is completed\)/,
    );
  });

  it("approve_run takes the gate's form: the fields are shown, a missing one is refused, the values reach later steps", async () => {
    const wf = await e.workflow({
      ...gateDef,
      name: "Gated form",
      steps: [
        {
          id: "ask",
          type: "approval",
          config: {
            prompt: "Ship {{ input.version }}?",
            form: { ticket: { type: "string", required: true } },
            priority: "urgent",
          },
        },
        {
          id: "ship",
          type: "transform",
          config: { value: "shipped under {{ steps.ask.output.data.form.ticket }}" },
        },
      ],
    });
    const editor = await connect(tokens.editor);
    const env = await ok<{ executionId: string; requiresApproval: Record<string, unknown> }>(
      editor,
      "run_workflow",
      { workflow: wf, waitMs: 20_000 },
    );
    expect(env.requiresApproval).toMatchObject({
      form: { ticket: { type: "string", required: true } },
      priority: "urgent",
    });
    const approver = await connect(tokens.ownerApprover);
    const runId = env.executionId;
    expect(errorText(await call(approver, "approve_run", { runId, decision: "approve" }))).toMatch(
      /Field "ticket" is required/,
    );
    const decided = await ok<{ status: string; output: unknown }>(approver, "approve_run", {
      runId,
      decision: "approve",
      form: { ticket: "OPS-42" },
      waitMs: 20_000,
    });
    expect(decided).toMatchObject({ status: "ok", output: "shipped under OPS-42" });
  });

  it("answers status running when the wait runs out, and get_run follows up", async () => {
    const wf = await e.workflow({
      schemaVersion: 1,
      name: "Slow",
      steps: [{ id: "nap", type: "delay", config: { duration: "1h" } }],
    });
    const client = await connect(tokens.editor);
    const env = await ok<{ executionId: string }>(client, "run_workflow", {
      workflow: wf,
      waitMs: 300,
    });
    expect(env).toMatchObject({ ok: true, status: "running", output: null });
    await e.waitFor(env.executionId, ["waiting"]);
    const later = await ok(client, "get_run", { runId: env.executionId, waitMs: 50 });
    expect(later).toMatchObject({
      status: "running",
      runStatus: "waiting",
      steps: [{ stepId: "nap", status: "waiting" }],
    });
    expect(later.requiresApproval).toBeUndefined();
    await ok(client, "cancel_run", { runId: env.executionId });
  });

  it("viewers may not run workflows; editors cancel a waiting run", async () => {
    const wf = await e.workflow(gateDef);
    const viewer = await connect(tokens.viewer);
    const refused = await call(viewer, "run_workflow", { workflow: wf });
    expect(errorText(refused)).toMatch(
      /^forbidden: run_workflow needs a token with the editor role or higher; this token acts as viewer/,
    );
    expect(refused.structuredContent).toMatchObject({ error: { code: "forbidden" } });

    const editor = await connect(tokens.editor);
    const env = await ok<{ executionId: string; status: string }>(editor, "run_workflow", {
      workflow: wf,
      waitMs: 20_000,
    });
    expect(env.status).toBe("needs_approval");
    expect(errorText(await call(viewer, "cancel_run", { runId: env.executionId }))).toMatch(
      /^forbidden: cancel_run needs/,
    );
    const cancelled = await ok<{ status: string }>(editor, "cancel_run", {
      runId: env.executionId,
      reason: "not today",
    });
    expect(["cancel_requested", "cancelled"]).toContain(cancelled.status);
    const after = await ok<{ status: string; runStatus: string }>(editor, "get_run", {
      runId: env.executionId,
      waitMs: 20_000,
    });
    expect(after).toMatchObject({ status: "cancelled", runStatus: "cancelled", ok: true });
  });
});

describe("MCP server: proposals", () => {
  it("propose_change opens a pending proposal authored by the MCP client; list_proposals shows it", async () => {
    const wf = await e.workflow(transformDef("Evolving"));
    const editor = await connect(tokens.editor);
    const { published } = await ok<{ published: { hash: string } }>(editor, "get_workflow", {
      workflow: wf,
    });
    const created = await ok<{ id: string; status: string; url: string }>(
      editor,
      "propose_change",
      {
        workflow: wf,
        summary: "Greet louder",
        rationale: "Users asked",
        baseHash: published.hash,
        patch: [{ op: "replace", path: "/steps/0/config/value", value: "HELLO {{ input.who }}" }],
      },
    );
    expect(created).toMatchObject({ status: "pending", id: expect.stringMatching(/^prp_/) });
    expect(created.url).toContain(`/workflows/${wf}/proposals/${created.id}`);
    const stored = await getProposal({ ctx: e.ws.ctx("admin"), input: { proposalId: created.id } });
    expect(stored.author).toMatchObject({
      type: "mcp",
      name: 'MCP client (API token "mcp editor")',
    });

    const viewer = await connect(tokens.viewer);
    const listed = await ok<{ items: { id: string; status: string }[] }>(viewer, "list_proposals", {
      workflow: wf,
      status: ["pending"],
    });
    expect(listed.items.map((p) => p.id)).toEqual([created.id]);
    expect(
      errorText(
        await call(viewer, "propose_change", {
          workflow: wf,
          summary: "x",
          baseHash: "current",
          patch: [],
        }),
      ),
    ).toMatch(/^forbidden: propose_change needs/);
  });

  it("refusals name the rule and the path: stale base, bad patch, invalid definition", async () => {
    const wf = await e.workflow(transformDef("Strict"));
    const editor = await connect(tokens.editor);
    const stale = await call(editor, "propose_change", {
      workflow: wf,
      summary: "late",
      baseHash: "sha256:" + "0".repeat(64),
      patch: [{ op: "replace", path: "/steps/0/config/value", value: 2 }],
    });
    expect(errorText(stale)).toMatch(/^stale_base: /);
    expect(stale.structuredContent).toMatchObject({ error: { code: "stale_base" } });
    const badPatch = errorText(
      await call(editor, "propose_change", {
        workflow: wf,
        summary: "bad",
        baseHash: "current",
        patch: [{ op: "remove", path: "/steps/9" }],
      }),
    );
    expect(badPatch).toMatch(/^invalid_patch: The patch does not apply/);
    expect(badPatch).toMatch(/- at patch\.0: /);
    const invalid = await call(editor, "propose_change", {
      workflow: wf,
      summary: "broken",
      baseHash: "current",
      definition: { schemaVersion: 1, name: "Strict", steps: [{ id: "greet", type: "nope" }] },
    });
    expect(errorText(invalid)).toMatch(/^validation: /);
    expect(errorText(invalid)).toMatch(/- at steps\.0\.type: /);
    const both = errorText(
      await call(editor, "propose_change", {
        workflow: wf,
        summary: "both",
        baseHash: "current",
        definition: transformDef("Strict"),
        patch: [{ op: "remove", path: "/steps/0" }],
      }),
    );
    expect(both).toMatch(/Give exactly one of definition, patch or intent/);
  });

  it('propose_change needs baseHash: missing or malformed is refused naming it; "current" is recorded as asked', async () => {
    const wf = await e.workflow(transformDef("Based"));
    const editor = await connect(tokens.editor);
    const patch = [{ op: "replace", path: "/steps/0/config/value", value: "based" }];
    const missing = await call(editor, "propose_change", { workflow: wf, summary: "x", patch });
    expect(missing.isError).toBe(true);
    expect(errorText(missing)).toMatch(/Input validation error/);
    expect(errorText(missing)).toMatch(/baseHash/);
    expect(errorText(missing)).toMatch(/Name the version the change was written against/);
    const malformed = await call(editor, "propose_change", {
      workflow: wf,
      summary: "x",
      baseHash: "sha256:1234",
      patch,
    });
    expect(malformed.isError).toBe(true);
    expect(errorText(malformed)).toMatch(/baseHash/);
    expect(errorText(malformed)).not.toMatch(/stale_base/);
    const created = await ok<{ id: string }>(editor, "propose_change", {
      workflow: wf,
      summary: "x",
      baseHash: "current",
      patch,
    });
    const stored = await getProposal({ ctx: e.ws.ctx("admin"), input: { proposalId: created.id } });
    expect(stored.baseRequested).toBe("current");
    expect(stored.baseHash).toMatch(/^sha256:[0-9a-f]{64}$/);
  });
});
