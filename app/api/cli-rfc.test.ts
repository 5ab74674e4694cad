/**
 * `sluice` against the app's real route handlers (a local HTTP server) and the real engine: the
 * RFC §6 parts of the contract — run's whole stdin request (trigger, runtime.attempt,
 * runtime.policy with maxOutputBytes), unknown fields refused, `sluice run … | sluice resume`
 * approving by default, and propose's envelope (risk, hashes, diff). Each command runs as a
 * subprocess (the bundled CLI) with an API token; stdout is the envelope, the exit code checked.
 */
import { spawn } from "node:child_process";
import fs from "node:fs";
import os from "node:os";
import path from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { startRunHarness, type RunHarness } from "@/server/testing/run-harness";
import { createApiToken } from "@/server/services/api-tokens/create-api-token";
import { bundleCli } from "@/server/testing/cli-bundle";
import { startRouteServer, type RouteServer } from "@/server/testing/route-server";

const CACHE = path.resolve(`node_modules/.cache/cli-rfc-tests/${process.pid}`);

let e: RunHarness;
let server: RouteServer;
let cli: string;
let token: string;
let home: string;

beforeAll(async () => {
  e = await startRunHarness("cli-rfc");
  server = await startRouteServer("api");
  cli = await bundleCli(CACHE);
  token = (await createApiToken({ ctx: e.ws.ctx("owner"), input: { name: "cli", role: "admin" } }))
    .token;
  home = fs.mkdtempSync(path.join(os.tmpdir(), "sluice-cli-rfc-"));
});
afterAll(async () => {
  await server?.close();
  await e?.close();
  fs.rmSync(CACHE, { recursive: true, force: true });
  if (home) fs.rmSync(home, { recursive: true, force: true });
});

interface Result {
  code: number | null;
  stdout: string;
  stderr: string;
  json: () => Record<string, any>; // eslint-disable-line @typescript-eslint/no-explicit-any
}

/** A bash script where `sluice` is the bundled CLI, connected to the route server. */
function sh(script: string, stdin = ""): Promise<Result> {
  return new Promise((resolve, reject) => {
    const child = spawn(
      "bash",
      ["-c", `set -o pipefail\nsluice() { node "$CLI" "$@"; }\n${script}`],
      {
        cwd: home,
        env: {
          NODE_ENV: "test",
          PATH: process.env.PATH,
          HOME: home,
          XDG_CONFIG_HOME: path.join(home, ".config"),
          CLI: cli,
          SLUICE_URL: server.origin,
          SLUICE_TOKEN: token,
        },
        timeout: 60_000,
      },
    );
    let stdout = "";
    let stderr = "";
    child.stdout.on("data", (c: Buffer) => (stdout += c.toString()));
    child.stderr.on("data", (c: Buffer) => (stderr += c.toString()));
    child.on("error", reject);
    child.on(
      "close",
      (code) =>
        resolve({ code, stdout, stderr, json: () => JSON.parse(stdout) as Record<string, any> }), // eslint-disable-line @typescript-eslint/no-explicit-any
    );
    child.stdin.on("error", () => {});
    child.stdin.end(stdin);
  });
}

const sluice = (args: string, stdin?: string) => sh(`sluice ${args}`, stdin);

async function api(p: string) {
  const res = await fetch(`${server.origin}/api/v1${p}`, {
    headers: { authorization: `Bearer ${token}` },
  });
  return (await res.json()) as Record<string, any>; // eslint-disable-line @typescript-eslint/no-explicit-any
}

const bytes = (v: unknown) => (v == null ? 0 : Buffer.byteLength(JSON.stringify(v), "utf8"));

describe("sluice run: RFC §6.5's whole stdin request", () => {
  let echo: string;
  beforeAll(async () => {
    echo = await e.workflow({
      schemaVersion: 1,
      name: "Echo twice",
      constraints: { maxSteps: 10, maxParallel: 4 },
      inputs: { text: { type: "string", required: true } },
      steps: [
        { id: "first", type: "transform", config: { value: "{{ input.text }}" } },
        {
          id: "second",
          type: "transform",
          config: { value: "{{ steps.first.output.data }} via {{ trigger.source }}" },
        },
      ],
      output: "{{ steps.second.output.data }}",
    });
  });

  it("passes trigger, runtime.attempt and runtime.policy on; maxOutputBytes bounds the printed outputs", async () => {
    const text = "x".repeat(3000);
    const request = {
      workflow: echo,
      variables: { text },
      trigger: { source: "nightly-cron", tick: "2024-06-01T00:00:00Z" },
      runtime: {
        idempotencyKey: `rfc-${Date.now()}`,
        attempt: 3,
        policy: { timeoutMs: 120_000, maxSteps: 5, maxParallel: 1, maxOutputBytes: 3200 },
      },
    };
    const r = await sluice("run", JSON.stringify(request));
    expect(r.code, r.stdout + r.stderr).toBe(0);
    const env = r.json();
    expect(env).toMatchObject({ ok: true, status: "ok", runStatus: "completed" });
    // The run's output (3000 x + " via nightly-cron") fits alone; the steps' outputs do not.
    expect(env.output).toBe(`${text} via nightly-cron`);
    expect(env.truncated).toMatchObject({ maxOutputBytes: 3200, omitted: expect.any(Array) });
    expect(env.truncated.outputBytes).toBeGreaterThan(3200);
    expect(env.truncated.omitted).toEqual(["steps.first.output", "steps.second.output"]);
    const printed =
      bytes(env.output) +
      (env.steps as { output: unknown }[]).reduce((n, s) => n + bytes(s.output), 0);
    expect(printed).toBeLessThanOrEqual(3200);
    // The run keeps the trigger (with the attempt) and the limits.
    const run = await api(`/runs/${env.executionId}`);
    expect(run).toMatchObject({
      triggerType: "api",
      triggerPayload: { source: "nightly-cron", tick: "2024-06-01T00:00:00Z", attempt: 3 },
      limits: { timeoutMs: 120_000, maxSteps: 5, maxParallel: 1 },
    });
    // Without the bound the same envelope prints every output.
    const whole = await sluice(
      "run",
      JSON.stringify({
        ...request,
        runtime: { idempotencyKey: `${request.runtime.idempotencyKey}-whole` },
      }),
    );
    expect(whole.code).toBe(0);
    expect(whole.json().truncated).toBeUndefined();
    expect(whole.json().steps.map((s: { output: unknown }) => s.output === null)).toEqual([
      false,
      false,
    ]);
  });

  it("refuses an unknown field with exit 10 naming it, before any run starts", async () => {
    const before = (await api(`/workflows/${echo}/runs`)).items.length as number;
    for (const [request, field] of [
      [{ workflow: echo, variables: { text: "a" }, runtime: { retries: 2 } }, "runtime.retries"],
      [
        { workflow: echo, variables: { text: "a" }, runtime: { policy: { maxTokens: 5 } } },
        "runtime.policy.maxTokens",
      ],
      [{ workflow: echo, variables: { text: "a" }, context: {} }, "context"],
    ] as const) {
      const r = await sluice("run", JSON.stringify(request));
      expect(r.code, r.stdout).toBe(10);
      expect(r.json()).toMatchObject({
        ok: false,
        status: "failed",
        executionId: null,
        error: { code: "usage", message: expect.stringContaining(`Unknown field "${field}"`) },
      });
    }
    expect((await api(`/workflows/${echo}/runs`)).items.length).toBe(before);
  });

  it("a trigger the server refuses (reserved input key) is exit 10 naming trigger.input", async () => {
    const r = await sluice(
      "run",
      JSON.stringify({ workflow: echo, variables: { text: "a" }, trigger: { input: {} } }),
    );
    expect(r.code, r.stdout).toBe(10);
    expect(r.json().error).toMatchObject({
      code: "validation",
      httpStatus: 400,
      message: expect.stringContaining("trigger.input is reserved"),
    });
  });
});

describe("sluice run … | sluice resume", () => {
  it("approves the gate the piped envelope names: the decision defaults to approve", async () => {
    const gate = await e.workflow({
      schemaVersion: 1,
      name: "Gate",
      inputs: { release: { type: "string", required: true } },
      steps: [
        {
          id: "ask",
          type: "approval",
          config: { prompt: "Ship {{ input.release }}?", allowInitiator: true },
        },
        { id: "ship", type: "transform", config: { value: "shipped {{ input.release }}" } },
      ],
      edges: [{ from: "ask", port: "approved", to: "ship" }],
      output: "{{ steps.ship.output.data }}",
    });
    const r = await sh(
      `sluice run --workflow ${gate} --input '{"release":"1.2"}' 2>/dev/null | sluice resume`,
    );
    expect(r.code, r.stdout + r.stderr).toBe(0);
    expect(r.json()).toMatchObject({
      ok: true,
      status: "ok",
      output: "shipped 1.2",
      decision: { status: "approved" },
    });
    // A finished run's envelope has no gate: refused before any request, saying so.
    const again = await sh(`sluice run --workflow ${gate} --input '{"release":"1.3"}' --no-wait`);
    const finished = await sluice(
      "resume",
      JSON.stringify({ ...again.json(), status: "ok", requiresApproval: undefined }),
    );
    expect(finished.code).toBe(10);
    expect(finished.json().error.message).toMatch(/has no open gate \(status "ok"\)/);
  });
});

describe("sluice propose: the envelope carries risk, hashes and the diff", () => {
  it("prints the risk level and reasons, the base and proposed hashes, and one line per change", async () => {
    const definition = {
      schemaVersion: 1,
      name: "Proposable",
      constraints: { allowSelfModification: true },
      steps: [{ id: "fetch", type: "transform", config: { value: "a" } }],
    };
    const wf = await e.workflow(definition);
    const base = (await api(`/workflows/${wf}`)).currentVersion.hash as string;
    const proposed = {
      ...definition,
      steps: [
        { id: "fetch", type: "transform", config: { value: "b" } },
        { id: "send", type: "http", config: { url: "https://example.com/hook", method: "POST" } },
      ],
      edges: [{ from: "fetch", to: "send" }],
    };
    fs.writeFileSync(path.join(home, "proposed.json"), JSON.stringify(proposed));
    const r = await sluice(
      `propose --workflow-id ${wf} --base-hash ${base} --definition @proposed.json --summary "Post it"`,
    );
    expect(r.code, r.stdout + r.stderr).toBe(0);
    const env = r.json();
    expect(env).toMatchObject({
      ok: true,
      status: "created",
      proposal: {
        id: expect.stringMatching(/^prp?_/),
        status: "pending",
        summary: "Post it",
        risk: expect.stringMatching(/^(low|medium|high)$/),
        baseHash: base,
        baseRequested: base,
        proposedHash: expect.stringMatching(/^sha256:[0-9a-f]{64}$/),
      },
      diff: {
        summary: { stepsAdded: 1, stepsChanged: 1, edgesAdded: 1 },
        changes: expect.arrayContaining([
          expect.objectContaining({ kind: "step", change: "added", target: "send" }),
          expect.objectContaining({ kind: "step", change: "changed", target: "fetch" }),
        ]),
      },
      url: expect.stringContaining(`/workflows/${wf}/proposals/`),
    });
    // A new outbound domain is a reason the review screen shows; the CLI shows it too.
    expect(env.proposal.riskReasons.length).toBeGreaterThan(0);
    expect(env.proposal.proposedHash).not.toBe(base);
    // The proposed hash is the one `sluice validate` computes for the same definition.
    const v = await sluice("validate --workflow-path proposed.json");
    expect(v.json().workflowHash).toBe(env.proposal.proposedHash);
  });
});
