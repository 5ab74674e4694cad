/**
 * `sluice runs diff` and `sluice rerun` (with --dry-run, the non-terminal refusal and --yes)
 * against the app's real route handlers (a local HTTP server) and the real engine; each command
 * runs as a subprocess (the bundled CLI) with an API token, stdout is the envelope.
 */
import fs from "node:fs";
import os from "node:os";
import path from "node:path";
import { eq } from "drizzle-orm";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { runs } from "@/db/schema";
import { createApiToken } from "@/server/services/api-tokens/create-api-token";
import { bundleCli } from "@/server/testing/cli-bundle";
import { runCliJson } from "@/server/testing/cli-subprocess";
import { startRouteServer, type RouteServer } from "@/server/testing/route-server";
import { startRunHarness, type RunHarness } from "@/server/testing/run-harness";

const CACHE = path.resolve(`node_modules/.cache/cli-run-compare-tests/${process.pid}`);

let e: RunHarness;
let server: RouteServer;
let cli: string;
const tokens = {} as Record<"viewer" | "editor", string>;
let home: string;

beforeAll(async () => {
  e = await startRunHarness("cli-run-compare");
  server = await startRouteServer("api");
  cli = await bundleCli(CACHE);
  for (const role of ["viewer", "editor"] as const)
    tokens[role] = (
      await createApiToken({ ctx: e.ws.ctx("admin"), input: { name: `cli ${role}`, role } })
    ).token;
  home = fs.mkdtempSync(path.join(os.tmpdir(), "sluice-cli-compare-"));
});
afterAll(async () => {
  await server?.close();
  await e?.close();
  fs.rmSync(CACHE, { recursive: true, force: true });
  if (home) fs.rmSync(home, { recursive: true, force: true });
});

/** The bundled CLI with `args`, stdin a pipe (not a terminal), as `as`. */
function sluice(args: string[], as: keyof typeof tokens) {
  return runCliJson({ cli, home, origin: server.origin, token: tokens[as] }, args);
}

describe("sluice runs diff / sluice rerun", () => {
  let wf: string;
  let a: string;
  let b: string;
  const runCount = async () =>
    (await e.db.db.select({ id: runs.id }).from(runs).where(eq(runs.workflowId, wf))).length;
  beforeAll(async () => {
    wf = await e.workflow({
      schemaVersion: 1,
      name: "CLI compared",
      inputs: { n: { type: "number", default: 1 } },
      steps: [
        { id: "calc", type: "transform", config: { value: { n: "{{ input.n }}" } } },
        { id: "tell", type: "emit_event", config: { event: "cli.compared", data: {} } },
      ],
    });
    a = (await e.waitFor(await e.start(wf, { n: 1 }), ["completed"])).id;
    b = (await e.waitFor(await e.start(wf, { n: 2 }), ["completed"])).id;
  });

  it("runs diff <a> <b> and runs diff <b> (previous run)", async () => {
    const r = await sluice(["runs", "diff", a, b], "viewer");
    expect(r.code).toBe(0);
    expect(r.json).toMatchObject({ ok: true, a: { id: a }, b: { id: b }, sameVersion: true });
    const calc = r.json.steps.find((s: { path: string }) => s.path === "calc");
    expect(calc.output.changes).toMatchObject([{ where: "$.n", before: 1, after: 2 }]);
    const prev = await sluice(["runs", "diff", b], "viewer");
    expect(prev.json.a.id).toBe(a);
    const bad = await sluice(["runs", "diff"], "viewer");
    expect(bad.code).toBe(10);
  });

  it("rerun --dry-run lists the repeating side effects with their keys and starts nothing", async () => {
    const before = await runCount();
    const r = await sluice(["rerun", a, "--dry-run"], "viewer");
    expect(r.code).toBe(0);
    expect(r.json).toMatchObject({
      ok: true,
      dryRun: true,
      rerun: [
        { stepId: "calc", sideEffect: false },
        { stepId: "tell", sideEffect: true, idempotency: { key: null, source: "none" } },
      ],
    });
    expect(await runCount()).toBe(before);
  });

  it("rerun without a terminal needs --yes; with it, the rerun starts and the list is on stderr", async () => {
    const before = await runCount();
    const refused = await sluice(["rerun", a], "editor");
    expect(refused.code).toBe(10);
    expect(refused.json.error).toMatchObject({
      code: "confirmation_required",
      details: { preview: { rerun: expect.any(Array) } },
    });
    expect(await runCount()).toBe(before);

    const done = await sluice(["rerun", a, "--yes"], "editor");
    expect(done.code).toBe(0);
    expect(done.json).toMatchObject({ ok: true, repeated: [{ stepId: "tell" }] });
    const line = JSON.parse(done.stderr.trim().split("\n")[0]!) as { type: string };
    expect(line.type).toBe("rerun_preview");
    await e.waitFor(done.json.runId as string, ["completed"]);
    expect(await runCount()).toBe(before + 1);

    const viewer = await sluice(["rerun", a, "--yes"], "viewer");
    expect(viewer.code).toBe(30);
  });
});
