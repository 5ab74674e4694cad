/**
 * `sluice proposals impact` and `sluice proposals replay` against the app's real route handlers
 * (a local HTTP server) and the real engine; each command runs as a subprocess (the bundled CLI)
 * with an API token, stdout is the envelope.
 */
import fs from "node:fs";
import os from "node:os";
import path from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { createApiToken } from "@/server/services/api-tokens/create-api-token";
import { createProposal } from "@/server/services/proposals/create-proposal";
import { createWorkflow } from "@/server/services/workflows/create-workflow";
import { publishWorkflow } from "@/server/services/workflows/publish-workflow";
import { saveDraft } from "@/server/services/workflows/save-draft";
import { bundleCli } from "@/server/testing/cli-bundle";
import { runCliJson } from "@/server/testing/cli-subprocess";
import { makeCtx } from "@/server/testing/harness";
import { startRouteServer, type RouteServer } from "@/server/testing/route-server";
import { startRunHarness, type RunHarness } from "@/server/testing/run-harness";

const CACHE = path.resolve(`node_modules/.cache/cli-proposals-tests/${process.pid}`);

let e: RunHarness;
let server: RouteServer;
let cli: string;
let token: string;
let home: string;
let proposalId: string;

const def = (value: number) => ({
  schemaVersion: 1,
  name: "P",
  constraints: { allowSelfModification: true },
  steps: [{ id: "s", type: "transform", config: { value } }],
});

beforeAll(async () => {
  e = await startRunHarness("cli-proposals");
  server = await startRouteServer("api");
  cli = await bundleCli(CACHE);
  token = (await createApiToken({ ctx: e.ws.ctx("admin"), input: { name: "cli", role: "viewer" } }))
    .token;
  home = fs.mkdtempSync(path.join(os.tmpdir(), "sluice-cli-proposals-"));
  const owner = e.ws.ctx("owner");
  const { id: workflowId } = await createWorkflow({ ctx: owner, input: { name: "Proposed" } });
  await saveDraft({ ctx: owner, input: { workflowId, definition: def(1) } });
  await publishWorkflow({ ctx: owner, input: { workflowId } });
  const proposer = makeCtx(
    e.db.db,
    { type: "user", userId: await e.ws.addMember("editor") },
    { id: e.ws.workspaceId, role: "editor" },
  );
  proposalId = (
    await createProposal({
      ctx: proposer,
      input: { baseHash: "current", workflowId, summary: "bump", definition: def(2) },
    })
  ).id;
});
afterAll(async () => {
  await server?.close();
  await e?.close();
  fs.rmSync(CACHE, { recursive: true, force: true });
  if (home) fs.rmSync(home, { recursive: true, force: true });
});

function sluice(args: string[]) {
  return runCliJson({ cli, home, origin: server.origin, token }, args);
}

describe("sluice proposals", () => {
  it("impact lists the runs in flight on the base version and the triggers that switch", async () => {
    const r = await sluice(["proposals", "impact", proposalId]);
    expect(r.code, r.stderr).toBe(0);
    expect(r.json).toMatchObject({ inFlight: { total: 0 } });
  });

  it("replay prints the verification level; --require-verified fails without evidence", async () => {
    const shown = await sluice(["proposals", "replay", proposalId]);
    expect(shown.code, shown.stderr).toBe(0);
    expect(shown.json.proposalId).toBe(proposalId);
    expect(["verified", "partial", "unproven"]).toContain(shown.json.verification.level);
    const required = await sluice(["proposals", "replay", proposalId, "--require-verified"]);
    // No run of the base version exists, so nothing was replayed: not verified.
    expect(shown.json.verification.level).not.toBe("verified");
    expect(required.code).toBe(20);
  });

  it("refuses an unknown subcommand with a usage error naming both", async () => {
    const r = await sluice(["proposals", "show", proposalId]);
    expect(r.code).not.toBe(0);
    expect(r.stderr + JSON.stringify(r.json)).toMatch(/replay\|impact/);
  });
});
