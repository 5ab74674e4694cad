/**
 * MCP tools verify_history, get_proposal_rules, preview_proposal_rules and update_proposal_rules
 * through the SDK client against the route handler and a real database: roles as in /api/v1
 * (viewer reads rules; admin verifies, previews and saves), bad CEL refused with the rule named,
 * and a row edited in the database found by verify_history at exactly that link.
 */
import { afterAll, afterEach, beforeAll, describe, expect, it } from "vitest";
import { createApiToken } from "@/server/services/api-tokens/create-api-token";
import { recordAudit } from "@/server/services/audit/record-audit";
import { createProposal } from "@/server/services/proposals/create-proposal";
import { getProposalRules } from "@/server/services/proposals/get-proposal-rules";
import { createWorkspaceFixture, type WorkspaceFixture } from "@/server/testing/harness";
import {
  DOMAIN_RULE,
  forgeAuditRow,
  governedDefinition,
} from "@/server/testing/governance-fixtures";
import { startRunHarness, type RunHarness } from "@/server/testing/run-harness";
import { call, errorText, mcpClients, ok } from "./test-client";

let e: RunHarness;
let other: WorkspaceFixture;
const tokens: Record<"viewer" | "editor" | "admin" | "foreignAdmin", string> = {
  viewer: "",
  editor: "",
  admin: "",
  foreignAdmin: "",
};
const clients = mcpClients();

beforeAll(async () => {
  e = await startRunHarness("mcp-governance");
  other = await createWorkspaceFixture(e.db.db, "Other");
  for (const role of ["viewer", "editor", "admin"] as const)
    tokens[role] = (
      await createApiToken({ ctx: e.ws.ctx("owner"), input: { name: role, role } })
    ).token;
  tokens.foreignAdmin = (
    await createApiToken({ ctx: other.ctx("owner"), input: { name: "f", role: "admin" } })
  ).token;
});
afterEach(async () => {
  await clients.closeAll();
});
afterAll(async () => {
  await e?.close();
});

describe("MCP governance tools", () => {
  it("previews rules on recent proposals, saves them (admin), and a viewer reads them", async () => {
    const wf = await e.workflow(governedDefinition("https://api.example.com/a"));
    const proposal = await createProposal({
      ctx: e.ws.ctx("editor"),
      input: {
        workflowId: wf,
        baseHash: "current",
        summary: "call elsewhere",
        definition: governedDefinition("https://evil.example.net/x"),
      },
    });
    const admin = await clients.connect(tokens.admin);
    const rules = { rules: [DOMAIN_RULE], allowedDomains: ["api.example.com"] };

    const preview = await ok(admin, "preview_proposal_rules", rules);
    expect(preview.items[0]).toMatchObject({
      proposalId: proposal.id,
      fired: [DOMAIN_RULE.name],
      verdicts: [{ rule: DOMAIN_RULE.name, effect: "require_admin_review", fired: true }],
    });
    // A preview saves nothing.
    expect((await getProposalRules({ ctx: e.ws.ctx("viewer") })).rules).toEqual([]);

    const saved = await ok(admin, "update_proposal_rules", rules);
    expect(saved).toEqual(rules);
    const viewer = await clients.connect(tokens.viewer);
    const read = await ok(viewer, "get_proposal_rules");
    expect(read.rules).toEqual([DOMAIN_RULE]);
    expect(read.allowedDomains).toEqual(["api.example.com"]);
    expect(read.presets.length).toBeGreaterThan(0);

    // Another workspace's admin sees its own (empty) rules, never these.
    const foreign = await clients.connect(tokens.foreignAdmin);
    expect((await ok(foreign, "get_proposal_rules")).rules).toEqual([]);
  });

  it("refuses a rule that does not compile with its name and position, and saves nothing", async () => {
    const admin = await clients.connect(tokens.admin);
    const before = await getProposalRules({ ctx: e.ws.ctx("viewer") });
    const bad = {
      rules: [{ name: "Broken rule", expression: "size(change.removedGates) >", effect: "refuse" }],
      allowedDomains: [],
    };
    for (const name of ["update_proposal_rules", "preview_proposal_rules"]) {
      const text = errorText(await call(admin, name, bad));
      expect(text).toMatch(/Broken rule/);
      expect(text).toMatch(/line 1 column \d+/);
    }
    expect(await getProposalRules({ ctx: e.ws.ctx("viewer") })).toEqual(before);
  });

  it("refuses rule changes and verification below admin, naming the role", async () => {
    const editor = await clients.connect(tokens.editor);
    for (const [name, args] of [
      ["update_proposal_rules", { rules: [], allowedDomains: [] }],
      ["preview_proposal_rules", { rules: [], allowedDomains: [] }],
      ["verify_history", {}],
    ] as const)
      expect(errorText(await call(editor, name, args))).toMatch(
        /needs a token with the admin role/,
      );
  });

  it("verify_history passes on the workspace's chain and names the row edited in the database", async () => {
    for (const action of ["test.one", "test.two"])
      await e.db.db.transaction((tx) => recordAudit(tx, e.ws.ctx("owner"), { action }));
    const admin = await clients.connect(tokens.admin);
    const good = await ok(admin, "verify_history");
    expect(good).toMatchObject({ ok: true, firstBroken: null });
    expect(good.checked).toBeGreaterThanOrEqual(2);
    // The head just printed, given back as an anchor, is still in the chain.
    expect(await ok(admin, "verify_history", { anchor: good.head })).toMatchObject({ ok: true });

    const editedId = await forgeAuditRow(e.db.db, e.ws.workspaceId, "test.one");
    const bad = await ok(admin, "verify_history");
    expect(bad.ok).toBe(false);
    expect(bad.firstBroken).toMatchObject({
      kind: "audit",
      rowId: String(editedId),
      problem: "content_changed",
    });
    // The other workspace's chain is its own and still verifies.
    const foreign = await clients.connect(tokens.foreignAdmin);
    expect(await ok(foreign, "verify_history")).toMatchObject({ ok: true });
  });
});
