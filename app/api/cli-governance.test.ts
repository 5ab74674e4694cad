/**
 * `sluice proposal-rules get|preview|set` and `sluice audit verify` against the app's real route
 * handlers (a local HTTP server) and a real database; each command runs as a subprocess (the
 * bundled CLI) with an API token, stdout is the envelope, the exit code follows SPEC §9.
 */
import fs from "node:fs";
import os from "node:os";
import path from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { createApiToken } from "@/server/services/api-tokens/create-api-token";
import { recordAudit } from "@/server/services/audit/record-audit";
import { createProposal } from "@/server/services/proposals/create-proposal";
import { getProposalRules } from "@/server/services/proposals/get-proposal-rules";
import { bundleCli } from "@/server/testing/cli-bundle";
import { runCliJson } from "@/server/testing/cli-subprocess";
import { startRouteServer, type RouteServer } from "@/server/testing/route-server";
import {
  DOMAIN_RULE,
  forgeAuditRow,
  governedDefinition,
} from "@/server/testing/governance-fixtures";
import { startRunHarness, type RunHarness } from "@/server/testing/run-harness";

const CACHE = path.resolve(`node_modules/.cache/cli-governance-tests/${process.pid}`);

let e: RunHarness;
let server: RouteServer;
let cli: string;
let home: string;
const tokens = { viewer: "", editor: "", admin: "" };
let proposalId: string;

beforeAll(async () => {
  e = await startRunHarness("cli-governance");
  server = await startRouteServer("api");
  cli = await bundleCli(CACHE);
  for (const role of ["viewer", "editor", "admin"] as const)
    tokens[role] = (
      await createApiToken({ ctx: e.ws.ctx("owner"), input: { name: role, role } })
    ).token;
  home = fs.mkdtempSync(path.join(os.tmpdir(), "sluice-cli-governance-"));
  const wf = await e.workflow(governedDefinition("https://api.example.com/a"));
  proposalId = (
    await createProposal({
      ctx: e.ws.ctx("editor"),
      input: {
        workflowId: wf,
        baseHash: "current",
        summary: "call elsewhere",
        definition: governedDefinition("https://evil.example.net/x"),
      },
    })
  ).id;
});
afterAll(async () => {
  await server?.close();
  await e?.close();
  fs.rmSync(CACHE, { recursive: true, force: true });
  if (home) fs.rmSync(home, { recursive: true, force: true });
});

function sluice(role: keyof typeof tokens, args: string[]) {
  return runCliJson({ cli, home, origin: server.origin, token: tokens[role] }, args);
}

function file(name: string, text: string): string {
  const p = path.join(home, name);
  fs.writeFileSync(p, text);
  return p;
}

describe("sluice proposal-rules", () => {
  it("previews a YAML rule set on recent proposals, sets it, and get prints it back", async () => {
    const yaml = file(
      "rules.yaml",
      `rules:
  - name: ${DOMAIN_RULE.name}
    expression: "${DOMAIN_RULE.expression}"
    effect: ${DOMAIN_RULE.effect}
    message: ${DOMAIN_RULE.message}
allowedDomains: [api.example.com]
`,
    );
    const preview = await sluice("admin", ["proposal-rules", "preview", yaml]);
    expect(preview.code, preview.stderr).toBe(0);
    expect(preview.json.items[0]).toMatchObject({ proposalId, fired: [DOMAIN_RULE.name] });
    expect((await getProposalRules({ ctx: e.ws.ctx("viewer") })).rules).toEqual([]);

    const set = await sluice("admin", ["proposal-rules", "set", yaml]);
    expect(set.code, set.stderr).toBe(0);
    expect(set.json).toMatchObject({ rules: [DOMAIN_RULE], allowedDomains: ["api.example.com"] });

    // What get prints (presets included) can be sent back unchanged.
    const got = await sluice("viewer", ["proposal-rules", "get"]);
    expect(got.code).toBe(0);
    expect(got.json.rules).toEqual([DOMAIN_RULE]);
    expect(got.json.presets.length).toBeGreaterThan(0);
    const again = await sluice("admin", [
      "proposal-rules",
      "set",
      file("got.json", JSON.stringify(got.json)),
    ]);
    expect(again.code, again.stderr).toBe(0);
    expect(again.json.rules).toEqual([DOMAIN_RULE]);
  });

  it("refuses a rule that does not compile (exit 10, rule and position named), a bad file, and a non-admin", async () => {
    const before = await getProposalRules({ ctx: e.ws.ctx("viewer") });
    const bad = file(
      "bad.json",
      JSON.stringify({
        rules: [
          { name: "Broken rule", expression: "size(change.removedGates) >", effect: "refuse" },
        ],
      }),
    );
    const r = await sluice("admin", ["proposal-rules", "set", bad]);
    expect(r.code).toBe(10);
    expect(r.json.error.message).toMatch(/Broken rule/);
    expect(r.json.error.message).toMatch(/line 1 column \d+/);

    const notJson = await sluice("admin", ["proposal-rules", "set", file("x.json", "{ rules: [")]);
    expect(notJson.code).toBe(10);
    expect(notJson.json.error.message).toMatch(/not valid JSON or YAML/);

    const editor = await sluice("editor", ["proposal-rules", "set", bad]);
    expect(editor.code).toBe(30);
    const usage = await sluice("admin", ["proposal-rules", "drop"]);
    expect(usage.code).toBe(10);
    expect(await getProposalRules({ ctx: e.ws.ctx("viewer") })).toEqual(before);
  });
});

describe("sluice audit verify", () => {
  it("exits 0 on an intact chain, checks an anchor, and exits 20 naming the row edited in the database", async () => {
    for (const action of ["test.one", "test.two"])
      await e.db.db.transaction((tx) => recordAudit(tx, e.ws.ctx("owner"), { action }));
    const good = await sluice("admin", ["audit", "verify"]);
    expect(good.code, good.stderr).toBe(0);
    expect(good.json).toMatchObject({ ok: true, firstBroken: null });
    const anchored = await sluice("admin", [
      "audit",
      "verify",
      "--anchor-seq",
      String(good.json.head.seq),
      "--anchor-hash",
      good.json.head.hash,
    ]);
    expect(anchored.code).toBe(0);
    const half = await sluice("admin", ["audit", "verify", "--anchor-seq", "1"]);
    expect(half.code).toBe(10);
    expect((await sluice("editor", ["audit", "verify"])).code).toBe(30);

    const editedId = await forgeAuditRow(e.db.db, e.ws.workspaceId, "test.two");
    const broken = await sluice("admin", ["audit", "verify"]);
    expect(broken.code).toBe(20);
    expect(broken.json.ok).toBe(false);
    expect(broken.json.firstBroken).toMatchObject({
      kind: "audit",
      rowId: String(editedId),
      problem: "content_changed",
    });
  });
});
