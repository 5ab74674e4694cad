/**
 * The copy-paste examples of docs/api.md, docs/cli.md and docs/mcp.md, executed: every fenced
 * block carries a `<!-- doc-test: … -->` directive (server/testing/doc-examples.ts) and runs
 * against the app's real route handlers behind a local HTTP server, with the real engine — curl
 * commands with real `curl`, `sluice` commands with the CLI's entry (bundled once, so each command
 * costs a node start rather than a TypeScript compile), MCP tool calls with the SDK's client.
 * Placeholders (`slu_…`, `run_01…`, `$WF`, …) are filled from a fresh workspace per block; a
 * documented answer is compared by shape (keys, literal values, `…` wildcards). A failure names
 * the file and line of the command.
 */
import { spawn } from "node:child_process";
import fs from "node:fs";
import os from "node:os";
import path from "node:path";
import { Client } from "@modelcontextprotocol/sdk/client/index.js";
import { StreamableHTTPClientTransport } from "@modelcontextprotocol/sdk/client/streamableHttp.js";
import type { CallToolResult } from "@modelcontextprotocol/sdk/types.js";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { stringify as toYaml } from "yaml";
import { startRunHarness, type RunHarness } from "@/server/testing/run-harness";
import { createApiToken } from "@/server/services/api-tokens/create-api-token";
import { bundleCli } from "@/server/testing/cli-bundle";
import {
  extractBlocks,
  parseDocJson,
  shapeMismatches,
  splitCommands,
  withoutComments,
  type DocBlock,
  type Directive,
} from "@/server/testing/doc-examples";
import { createWorkspaceFixture, type WorkspaceFixture } from "@/server/testing/harness";
import { startRouteServer, type RouteServer } from "@/server/testing/route-server";

const DOCS = ["docs/api.md", "docs/cli.md", "docs/mcp.md"];
// Inside node_modules so the bundle's bare imports resolve; one folder per worker, because the
// pglite and postgres projects run this file at the same time.
const CACHE = path.resolve(`node_modules/.cache/doc-tests/${process.pid}`);

const nightlyDef = {
  schemaVersion: 1,
  name: "Nightly report",
  constraints: { allowSelfModification: true },
  inputs: { day: { type: "string", default: "2024-06-01" } },
  steps: [
    { id: "fetch", type: "transform", config: { value: "report for {{ input.day }}" } },
    { id: "send", type: "transform", config: { value: "{{ steps.fetch.output.data }}" } },
  ],
  output: "{{ steps.send.output.data }}",
};
const deployDef = {
  schemaVersion: 1,
  name: "Deploy",
  inputs: { release: { type: "string", default: "1.0" } },
  steps: [
    {
      id: "ask",
      type: "approval",
      config: {
        prompt: "Ship {{ input.release }}?",
        items: ["release {{ input.release }}"],
        // The documented envelope shows the caller may decide the run it started.
        allowInitiator: true,
      },
    },
    { id: "ship", type: "transform", config: { value: "shipped {{ input.release }}" } },
  ],
  edges: [{ from: "ask", port: "approved", to: "ship" }],
  output: "{{ steps.ship.output.data }}",
};

let e: RunHarness;
let server: RouteServer;
let cli: string;
const blocks = DOCS.flatMap((file) => extractBlocks(fs.readFileSync(file, "utf8"), file));

beforeAll(async () => {
  e = await startRunHarness("docexamples");
  server = await startRouteServer("api");
  cli = await bundleCli(CACHE);
});
afterAll(async () => {
  await server?.close();
  await e?.close();
  fs.rmSync(CACHE, { recursive: true, force: true });
});

/** One block's world: a fresh workspace with an admin token, the two documented workflows, files. */
interface Scope {
  fixture: string;
  ws: WorkspaceFixture;
  token: string;
  dir: string;
  nightly: string;
  deploy: string;
  deployHash: string;
  finishedRun?: string;
}

async function api<T = Record<string, unknown>>(
  scope: Scope,
  method: string,
  p: string,
  body?: unknown,
) {
  const res = await fetch(`${server.origin}/api/v1${p}`, {
    method,
    headers: { authorization: `Bearer ${scope.token}`, "content-type": "application/json" },
    body: body === undefined ? undefined : JSON.stringify(body),
  });
  const json = (await res.json()) as T;
  expect(res.status, `${method} ${p}: ${JSON.stringify(json)}`).toBeLessThan(300);
  return json;
}

async function setup(fixture: string): Promise<Scope> {
  const ws = await createWorkspaceFixture(e.db.db, "Docs");
  const token = (
    await createApiToken({ ctx: ws.ctx("owner"), input: { name: "docs", role: "admin" } })
  ).token;
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), "sluice-docs-"));
  const scope: Scope = { fixture, ws, token, dir, nightly: "", deploy: "", deployHash: "" };
  if (fixture === "none") return scope;
  // Created the way docs/api.md shows (declarative sync), so they are at version 1.0.0.
  const synced = await api<{ plan: { slug: string; workflowId: string; hash: string }[] }>(
    scope,
    "PUT",
    "/workflows/sync",
    {
      workflows: [
        { slug: "nightly-report", ...nightlyDef },
        { slug: "deploy", ...deployDef },
      ],
    },
  );
  const planned = (slug: string) => synced.plan.find((p) => p.slug === slug)!;
  scope.nightly = planned("nightly-report").workflowId;
  scope.deploy = planned("deploy").workflowId;
  scope.deployHash = planned("deploy").hash;
  const wf = await api<{ draft: { revision: number } }>(
    scope,
    "GET",
    `/workflows/${scope.nightly}`,
  );
  const changed = {
    ...nightlyDef,
    steps: nightlyDef.steps.map((s) =>
      s.id === "fetch" ? { ...s, retry: { maxAttempts: 3 } } : s,
    ),
  };
  const write = (name: string, text: string) => fs.writeFileSync(path.join(dir, name), text);
  write("draft.json", JSON.stringify({ definition: changed, baseRevision: wf.draft.revision }));
  write(
    "set.json",
    JSON.stringify({ workflows: [{ slug: "nightly-report", ...changed }], dryRun: true }),
  );
  write("input.json", JSON.stringify({ day: "2024-06-02" }));
  write("flow.yaml", toYaml(changed));
  write("flow.json", JSON.stringify(changed, null, 2));
  fs.mkdirSync(path.join(dir, "workflows"));
  fs.writeFileSync(path.join(dir, "workflows/nightly-report.json"), JSON.stringify(changed));
  fs.writeFileSync(
    path.join(dir, "workflows/weekly-report.yaml"),
    toYaml({ ...nightlyDef, name: "Weekly" }),
  );
  return scope;
}

/** A run for `$RUN` / `run_01…`: finished (fixture `workspace`) or waiting at its gate (`gate`). */
async function runFor(scope: Scope): Promise<{ runId: string; resumeToken?: string }> {
  if (scope.fixture === "gate") {
    const runId = await e.start(scope.deploy, { release: "1.2" }, scope.ws);
    await e.waitFor(runId, ["waiting"]);
    await e.pendingApproval(runId);
    const run = await api<{ requiresApproval: { resumeToken: string } }>(
      scope,
      "GET",
      `/runs/${runId}`,
    );
    return { runId, resumeToken: run.requiresApproval.resumeToken };
  }
  // A finished run is not changed by the commands that read or rerun it: one per block.
  if (!scope.finishedRun) {
    scope.finishedRun = await e.start(scope.nightly, { day: "2024-06-01" }, scope.ws);
    await e.waitFor(scope.finishedRun, ["completed"]);
  }
  return { runId: scope.finishedRun };
}

/** Fills the placeholders a command uses; a `…` left outside comments fails the example. */
async function fill(
  scope: Scope,
  text: string,
): Promise<{ text: string; env: Record<string, string> }> {
  const env: Record<string, string> = {
    SLUICE_URL: server.origin,
    SLUICE_TOKEN: scope.token,
    TOKEN: scope.token,
  };
  const subs: [string, string][] = [
    ["https://sluice.example.com", server.origin],
    ["http://localhost:3000", server.origin],
    ["slu_…", scope.token],
  ];
  if (scope.fixture !== "none") {
    env.WF = scope.nightly;
    subs.push(
      ["wf_01…", scope.nightly],
      ['{"definition":{…}}', JSON.stringify({ definition: nightlyDef })],
    );
    subs.push(["sha256:…", scope.deployHash]);
    if (/\$RUN\b|run_01…|wrf_rt_…/.test(text)) {
      const run = await runFor(scope);
      env.RUN = run.runId;
      subs.push(["run_01…", run.runId]);
      if (run.resumeToken) subs.push(["wrf_rt_…", run.resumeToken]);
    }
  }
  let out = text;
  for (const [from, to] of subs) out = out.split(from).join(to);
  return { text: out, env };
}

interface ShellResult {
  code: number;
  stdout: string;
  stderr: string;
  httpStatuses: number[];
}

/** `npx sluice` is the bundled CLI entry; curl reports each answer's status on stderr. */
const PRELUDE = `set -o pipefail
npx() { if [ "$1" = sluice ]; then shift; node "$DOC_TEST_CLI" "$@"; else echo "doc-test: only npx sluice is available" >&2; return 127; fi; }
curl() { command curl -sS -w '%{stderr}doc-test-http %{http_code}\\n' "$@"; }
`;

function sh(scope: Scope, script: string, env: Record<string, string>, stdin?: string) {
  return new Promise<ShellResult>((resolve, reject) => {
    const child = spawn("bash", ["-c", PRELUDE + script], {
      cwd: scope.dir,
      env: {
        NODE_ENV: "test",
        PATH: process.env.PATH,
        HOME: scope.dir,
        XDG_CONFIG_HOME: path.join(scope.dir, ".config"),
        DOC_TEST_CLI: cli,
        ...env,
      },
      timeout: 30_000,
    });
    let stdout = "";
    let stderr = "";
    child.stdout.on("data", (c: Buffer) => (stdout += c.toString()));
    child.stderr.on("data", (c: Buffer) => (stderr += c.toString()));
    child.on("error", reject);
    child.on("close", (code) => {
      const httpStatuses = [...stderr.matchAll(/doc-test-http (\d+)/g)].map((m) => Number(m[1]));
      resolve({
        code: code ?? -1,
        stdout,
        stderr: stderr.replace(/doc-test-http \d+\n/g, ""),
        httpStatuses,
      });
    });
    // A command that never reads stdin may exit first: the pipe's EPIPE is not a failure.
    child.stdin.on("error", () => {});
    child.stdin.end(stdin ?? "");
  });
}

function where(block: DocBlock, line = block.line) {
  return `${block.file}:${line}`;
}

function assertNoPlaceholder(text: string, at: string) {
  const rest = withoutComments(text);
  expect(
    rest.includes("…"),
    `${at}: a placeholder (…) is left that the test cannot fill:\n${rest}`,
  ).toBe(false);
}

function assertShellOk(r: ShellResult, at: string, command: string, expectStatus?: number) {
  const detail = `${at}: \`${command}\`\nexit ${r.code}\nstdout: ${r.stdout.slice(0, 800)}\nstderr: ${r.stderr.slice(0, 800)}`;
  if (expectStatus !== undefined) {
    expect(r.httpStatuses, detail).toEqual([expectStatus]);
    return;
  }
  expect(r.code, detail).toBe(0);
  for (const s of r.httpStatuses) expect(s >= 200 && s < 400, `${detail}\nHTTP ${s}`).toBe(true);
}

async function mcpCall(scope: Scope, command: string, at: string) {
  const m = /^mcp\s+(\w+)\s*([\s\S]*)$/.exec(command)!;
  const { text, env } = await fill(scope, m[2] || "{}");
  const args = JSON.parse(
    text.replace(/\$([A-Z_]+)/g, (_, k: string) => env[k] ?? `$${k}`),
  ) as Record<string, unknown>;
  const client = new Client({ name: "doc-tests", version: "1.0.0" });
  await client.connect(
    new StreamableHTTPClientTransport(new URL(`${server.origin}/api/mcp`), {
      requestInit: { headers: { authorization: `Bearer ${scope.token}` } },
    }),
  );
  try {
    const r = (await client.callTool({ name: m[1]!, arguments: args })) as CallToolResult;
    expect(r.isError, `${at}: ${JSON.stringify(r.content)}`).toBeFalsy();
    return r.structuredContent;
  } finally {
    await client.close();
  }
}

async function runBlock(block: DocBlock, d: Exclude<Directive, { kind: "skip" }>) {
  const scope = await setup(d.fixture);
  try {
    if (d.kind === "sh") {
      const commands = splitCommands(block.content, block.line);
      const state: string[] = [];
      for (const c of commands) {
        const at = where(block, c.line);
        const { text, env } = await fill(scope, c.text);
        assertNoPlaceholder(text, at);
        if (c.isAssignment && c !== commands.at(-1)) {
          state.push(text);
          continue;
        }
        const r = await sh(scope, [...state, text].join("\n"), env);
        assertShellOk(r, at, c.text);
        if (c.isAssignment) state.push(text);
      }
      return;
    }
    if (d.kind === "node") {
      const { text, env } = await fill(scope, block.content);
      assertNoPlaceholder(text, where(block));
      const file = path.join(CACHE, `example-${path.basename(block.file)}-${block.line}.mjs`);
      fs.writeFileSync(file, text);
      const r = await sh(scope, `node ${JSON.stringify(file)}`, env);
      assertShellOk(r, where(block), "node <block>");
      return;
    }
    const at = `${block.file}:${block.directiveLine} (directive)`;
    if (d.command.startsWith("mcp ")) {
      const answer = await mcpCall(scope, d.command, at);
      if (d.kind === "output") compare(block, answer);
      return;
    }
    const { text, env } = await fill(scope, d.command);
    assertNoPlaceholder(text, at);
    const stdin = d.kind === "input" ? (await fill(scope, block.content)).text : undefined;
    if (stdin !== undefined) assertNoPlaceholder(stdin, where(block));
    const r = await sh(scope, text, env, stdin);
    assertShellOk(r, at, d.command, d.status);
    if (d.kind === "output") {
      let answer: unknown;
      try {
        answer = JSON.parse(r.stdout);
      } catch {
        throw new Error(`${at}: the command's stdout is not JSON:\n${r.stdout.slice(0, 500)}`);
      }
      compare(block, answer);
    }
  } finally {
    fs.rmSync(scope.dir, { recursive: true, force: true });
  }
}

function compare(block: DocBlock, answer: unknown) {
  let documented: unknown;
  try {
    documented = parseDocJson(block.content);
  } catch (err) {
    throw new Error(
      `${where(block)}: the documented body does not parse: ${(err as Error).message}`,
    );
  }
  expect(shapeMismatches(documented, answer), `${where(block)}: documented vs real answer`).toEqual(
    [],
  );
}

describe("docs examples", () => {
  it("every fenced block says whether and how it is executed", () => {
    const problems = blocks.flatMap((b) =>
      "error" in b
        ? [`${b.file}:${b.line}: ${b.error}`]
        : b.directive
          ? []
          : [`${b.file}:${b.line}: fenced block without a <!-- doc-test: … --> directive`],
    );
    expect(problems).toEqual([]);
  });

  for (const block of blocks) {
    if ("error" in block || !block.directive) continue;
    const d = block.directive;
    const title = `${block.file}:${block.line} ${d.kind}${"fixture" in d ? ` (${d.fixture})` : ""}`;
    if (d.kind === "skip") it.skip(`${title}: ${d.reason}`, () => {});
    else it(title, () => runBlock(block, d));
  }
});
