import { spawn } from "node:child_process";
import fs from "node:fs";
import os from "node:os";
import path from "node:path";
import { expect, test, type APIRequestContext } from "@playwright/test";
import { createApiToken } from "../fixtures/people";
import { OWNER, OWNER_STATE } from "../fixtures/users";
import { publishWorkflow } from "../fixtures/workflows";

/**
 * The `sluice` CLI's contract (SPEC §9) against the built app: every command runs as a real
 * subprocess (`node bin/sluice.mjs`) over HTTP with an API token; each test asserts the stdout
 * envelope, that stderr is NDJSON (one `{ type, … }` object per line) and the exit code.
 */
test.use({ storageState: OWNER_STATE });
test.describe.configure({ mode: "serial" });

const BIN = path.resolve("bin/sluice.mjs");
const stamp = () => `${Date.now().toString(36)}${Math.random().toString(36).slice(2, 5)}`;

interface Result {
  code: number | null;
  stdout: string;
  stderr: string;
  /** stdout as the one JSON envelope. */
  json: () => Record<string, any>; // eslint-disable-line @typescript-eslint/no-explicit-any
  /** stderr as NDJSON: fails the test if any line is not a JSON object with a string `type`. */
  events: () => { type: string; [k: string]: unknown }[];
}

function ndjson(text: string): { type: string; [k: string]: unknown }[] {
  return text
    .split("\n")
    .filter((l) => l !== "")
    .map((line) => {
      const e = JSON.parse(line) as { type: string };
      expect(typeof e.type, line).toBe("string");
      return e;
    });
}

/** Runs the CLI with a private config folder; `env` adds or (with undefined) removes variables. */
function sluice(
  args: string[],
  opts: { env?: Record<string, string | undefined>; stdin?: string; config?: string } = {},
): Promise<Result> {
  const env: NodeJS.ProcessEnv = { ...process.env };
  delete env.SLUICE_URL;
  delete env.SLUICE_TOKEN;
  env.XDG_CONFIG_HOME = opts.config ?? fs.mkdtempSync(path.join(os.tmpdir(), "sluice-cli-"));
  for (const [k, v] of Object.entries(opts.env ?? {})) {
    if (v === undefined) delete env[k];
    else env[k] = v;
  }
  return new Promise((resolve, reject) => {
    const child = spawn(process.execPath, [BIN, ...args], { env, stdio: "pipe" });
    let stdout = "";
    let stderr = "";
    child.stdout.on("data", (c: Buffer) => (stdout += c.toString()));
    child.stderr.on("data", (c: Buffer) => (stderr += c.toString()));
    child.on("error", reject);
    child.on("close", (code) =>
      resolve({
        code,
        stdout,
        stderr,
        json: () => JSON.parse(stdout),
        events: () => ndjson(stderr),
      }),
    );
    child.stdin.end(opts.stdin ?? "");
  });
}

/** Every test's connection: the owner's admin token (editor + approver rights) and a viewer's. */
let admin: Record<string, string>;
let viewer: Record<string, string>;
async function tokens(request: APIRequestContext, baseURL: string) {
  admin ??= {
    SLUICE_URL: baseURL,
    SLUICE_TOKEN: await createApiToken(request, `cli-admin-${stamp()}`, "admin"),
  };
  viewer ??= {
    SLUICE_URL: baseURL,
    SLUICE_TOKEN: await createApiToken(request, `cli-viewer-${stamp()}`, "viewer"),
  };
}

/** The greet workflow and its first run, shared by the serial tests below. */
let greet: { id: string; slug: string; currentVersion: { hash: string; version: string } };
let greetRunId = "";

function greetWorkflow(name: string, extra: Record<string, unknown> = {}) {
  return {
    schemaVersion: 1,
    name,
    inputs: { who: { type: "string", required: true } },
    steps: [{ id: "greet", type: "transform", config: { value: "hello {{ input.who }}" } }],
    output: "{{ steps.greet.output.data }}",
    ...extra,
  };
}

function gateWorkflow(name: string) {
  return {
    schemaVersion: 1,
    name,
    inputs: { release: { type: "string", required: true } },
    steps: [
      {
        id: "ask",
        type: "approval",
        config: {
          prompt: "Ship {{ input.release }}?",
          items: ["release {{ input.release }}"],
          allowInitiator: true,
        },
      },
      { id: "ship", type: "transform", config: { value: "shipped {{ input.release }}" } },
    ],
    edges: [{ from: "ask", port: "approved", to: "ship" }],
    output: "{{ steps.ship.output.data }}",
  };
}

/** Every run envelope has SPEC §9's keys. */
function expectRunEnvelope(env: Record<string, unknown>) {
  for (const key of ["ok", "status", "executionId", "output", "steps"])
    expect(env, `envelope key ${key}`).toHaveProperty(key);
  expect(["ok", "needs_approval", "cancelled", "failed", "running"]).toContain(env.status);
  expect(Array.isArray(env.steps)).toBe(true);
}

async function workflowOf(slugOrId: string) {
  const r = await sluice(["workflows", slugOrId], { env: admin });
  expect(r.code, r.stdout).toBe(0);
  return r.json().workflow as {
    id: string;
    slug: string;
    currentVersion: { hash: string; version: string };
  };
}

test("help: sluice --help lists every command; each command has its own help", async () => {
  const r = await sluice(["--help"]);
  expect(r.code).toBe(0);
  for (const c of [
    "login",
    "workflows",
    "run",
    "resume",
    "validate",
    "propose",
    "runs",
    "logs",
    "sync",
  ])
    expect(r.stdout).toMatch(new RegExp(`^  ${c} `, "m"));
  expect(r.stdout).toContain("20 contract violation");
  const run = await sluice(["run", "--help"]);
  expect(run.code).toBe(0);
  expect(run.stdout).toContain("--workflow-hash");
  expect((await sluice(["help", "resume"])).stdout).toContain("--resume-token");
  expect((await sluice([])).code).toBe(10);
  expect((await sluice(["frobnicate"])).code).toBe(10);
});

test("login stores URL and token with mode 0600; commands then need no env; a bad token is exit 20", async ({
  request,
  baseURL,
}) => {
  await tokens(request, baseURL!);
  const config = fs.mkdtempSync(path.join(os.tmpdir(), "sluice-login-"));
  const r = await sluice(["login", "--url", `${baseURL}/`, "--token", admin.SLUICE_TOKEN!], {
    config,
  });
  expect(r.code, r.stdout).toBe(0);
  expect(r.json()).toMatchObject({
    ok: true,
    url: baseURL,
    user: { email: OWNER.email },
    role: "admin",
  });
  const file = path.join(config, "sluice", "config.json");
  expect(r.json().configPath).toBe(file);
  expect(fs.statSync(file).mode & 0o777).toBe(0o600);
  expect(JSON.parse(fs.readFileSync(file, "utf8"))).toEqual({
    url: baseURL,
    token: admin.SLUICE_TOKEN,
  });

  const list = await sluice(["workflows", "--limit", "5"], { config });
  expect(list.code, list.stdout).toBe(0);
  expect(list.json()).toMatchObject({ ok: true, items: expect.any(Array) });

  // SLUICE_TOKEN overrides the stored token: a bad one is refused (401 → 20).
  const bad = await sluice(["workflows"], { config, env: { SLUICE_TOKEN: "slu_not_a_token" } });
  expect(bad.code).toBe(20);
  expect(bad.json()).toMatchObject({ ok: false, error: { code: "unauthorized", httpStatus: 401 } });

  const refused = await sluice(["login", "--url", baseURL!, "--token", "slu_nope"], { config });
  expect(refused.code).toBe(20);
  expect(JSON.parse(fs.readFileSync(file, "utf8")).token).toBe(admin.SLUICE_TOKEN);

  const nobody = await sluice(["runs"]);
  expect(nobody.code).toBe(20);
  expect(nobody.json().error.code).toBe("not_logged_in");
});

test("workflows lists and shows one by slug; run completes (ok, exit 0) with NDJSON progress", async ({
  request,
  baseURL,
}) => {
  await tokens(request, baseURL!);
  const name = `CLI greet ${stamp()}`;
  const id = await publishWorkflow(request, greetWorkflow(name));
  const wf = (greet = await workflowOf(id));
  const list = await sluice(["workflows", "--search", name], { env: admin });
  expect(list.code).toBe(0);
  expect(list.json().items.map((w: { id: string }) => w.id)).toEqual([id]);
  expect(wf.currentVersion.hash).toMatch(/^sha256:[0-9a-f]{64}$/);

  const r = await sluice(["run", "--workflow", wf.slug, "--input", '{"who":"cli"}'], {
    env: admin,
  });
  expect(r.code, r.stdout + r.stderr).toBe(0);
  const env = r.json();
  expectRunEnvelope(env);
  expect(env).toMatchObject({
    ok: true,
    status: "ok",
    runStatus: "completed",
    output: "hello cli",
    workflowId: id,
  });
  expect(env.executionId).toMatch(/^run_/);
  greetRunId = env.executionId;
  expect(env.steps).toEqual([
    expect.objectContaining({ stepId: "greet", status: "completed", attempt: 1 }),
  ]);
  const types = r.events().map((e) => e.type);
  expect(types[0]).toBe("cli.run_created");
  expect(types).toContain("step.completed");
  expect(types).toContain("run.finished");

  // The RFC §6.5 request on stdin; the idempotency key answers the same run the second time.
  const request65 = JSON.stringify({
    workflow: wf.slug,
    variables: { who: "stdin" },
    runtime: { idempotencyKey: `k-${stamp()}` },
  });
  const first = await sluice(["run"], { env: admin, stdin: request65 });
  expect(first.code, first.stdout).toBe(0);
  expect(first.json()).toMatchObject({ status: "ok", output: "hello stdin", deduplicated: false });
  const again = await sluice(["run"], { env: admin, stdin: request65 });
  expect(again.code).toBe(0);
  expect(again.json()).toMatchObject({
    executionId: first.json().executionId,
    deduplicated: true,
  });

  // --workflow-hash pins the published version: the right hash runs, another one is exit 20.
  const pinned = await sluice(
    [
      "run",
      "--workflow",
      wf.slug,
      "--input",
      '{"who":"pin"}',
      "--workflow-hash",
      wf.currentVersion.hash,
    ],
    { env: admin },
  );
  expect(pinned.code).toBe(0);
  expect(pinned.json().output).toBe("hello pin");
  const mismatch = await sluice(
    [
      "run",
      "--workflow",
      wf.slug,
      "--input",
      '{"who":"x"}',
      "--workflow-hash",
      `sha256:${"0".repeat(64)}`,
    ],
    { env: admin },
  );
  expect(mismatch.code).toBe(20);
  const refused = mismatch.json();
  expectRunEnvelope(refused);
  expect(refused).toMatchObject({
    ok: false,
    status: "failed",
    executionId: null,
    error: { code: "hash_mismatch", details: { actual: wf.currentVersion.hash } },
  });
});

test("run refusals: exit 20 for a bad token, 30 for a viewer's token, 10 for bad input", async ({
  request,
  baseURL,
}) => {
  await tokens(request, baseURL!);
  const wf = greet;
  const badToken = await sluice(["run", "--workflow", wf.slug, "--input", "{}"], {
    env: { ...admin, SLUICE_TOKEN: "slu_wrong" },
  });
  expect(badToken.code).toBe(20);
  expect(badToken.json().error.code).toBe("unauthorized");
  const asViewer = await sluice(["run", "--workflow", wf.slug, "--input", '{"who":"v"}'], {
    env: viewer,
  });
  expect(asViewer.code).toBe(30);
  expect(asViewer.json()).toMatchObject({
    ok: false,
    error: { code: "forbidden", httpStatus: 403 },
  });
  const missingInput = await sluice(["run", "--workflow", wf.slug, "--input", "{}"], {
    env: admin,
  });
  expect(missingInput.code).toBe(10);
  expect(missingInput.json().error).toMatchObject({ code: "validation", httpStatus: 400 });
  const unknown = await sluice(["run", "--workflow", `no-such-${stamp()}`], { env: admin });
  expect(unknown.code).toBe(10);
  expect(unknown.json().error.code).toBe("not_found");
  // An inline definition with an invalid step is refused with its path (nothing runs).
  const badInline = await sluice(["run"], {
    env: admin,
    stdin: JSON.stringify({
      workflow: { schemaVersion: 1, name: "Bad", steps: [{ id: "x", type: "nope" }] },
    }),
  });
  expect(badInline.code).toBe(10);
  expect(badInline.json().error).toMatchObject({ code: "validation", httpStatus: 400 });
  // Per-run limits pass through; one looser than the definition's constraints is refused.
  const loose = await sluice(
    ["run", "--workflow", wf.slug, "--input", '{"who":"x"}', "--max-parallel", "32"],
    { env: admin },
  );
  expect(loose.code).toBe(10);
  expect(loose.json().error).toMatchObject({
    code: "validation",
    httpStatus: 400,
    message: expect.stringMatching(/limits\.maxParallel may only tighten .* at most 4, got 32/),
  });
});

test("run runs an inline definition (workflow object on stdin): completes with workflowId null", async ({
  request,
  baseURL,
}) => {
  await tokens(request, baseURL!);
  const inline = await sluice(["run"], {
    env: admin,
    stdin: JSON.stringify({ workflow: greetWorkflow("inline"), variables: { who: "inline" } }),
  });
  expect(inline.code).toBe(0);
  expect(inline.json()).toMatchObject({
    ok: true,
    status: "ok",
    workflowId: null,
    version: "inline",
    output: "hello inline",
  });
  const listed = await sluice(["runs", "--inline"], { env: admin });
  expect(listed.json().items.map((r: { id: string }) => r.id)).toContain(inline.json().executionId);
});

test("run passes per-run limits through and the run keeps them", async ({ request, baseURL }) => {
  await tokens(request, baseURL!);
  const tight = await sluice(
    ["run", "--workflow", greet.slug, "--input", '{"who":"limits"}', "--timeout-ms", "60000"],
    { env: admin },
  );
  expect(tight.code, tight.stderr).toBe(0);
  expect(tight.json()).toMatchObject({ ok: true, status: "ok" });
  const run = await request.get(`/api/v1/runs/${tight.json().executionId}`, {
    headers: { authorization: `Bearer ${admin.SLUICE_TOKEN}` },
  });
  expect((await run.json()).limits).toEqual({ timeoutMs: 60000 });
});

test("runs lists the runs; logs prints the history as NDJSON, --follow ends on a finished run", async ({
  request,
  baseURL,
}) => {
  await tokens(request, baseURL!);
  const wf = greet;
  const env = { executionId: greetRunId };
  const runs = await sluice(["runs", "--workflow", wf.slug, "--status", "completed"], {
    env: admin,
  });
  expect(runs.code).toBe(0);
  expect(runs.json().items.map((x: { id: string }) => x.id)).toContain(env.executionId);
  const logs = await sluice(["logs", env.executionId], { env: admin });
  expect(logs.code).toBe(0);
  const history = ndjson(logs.stdout);
  expect(history.map((e) => e.type)).toEqual(
    expect.arrayContaining(["step.completed", "run.finished"]),
  );
  const follow = await sluice(["logs", env.executionId, "--follow"], { env: admin });
  expect(follow.code).toBe(0);
  expect(ndjson(follow.stdout).map((e) => e.id)).toEqual(history.map((e) => e.id));
  const missing = await sluice(["logs", "run_missing"], { env: admin });
  expect(missing.code).toBe(10);
});

test("a run that fails on a user error prints ok: false with the step's error, exit 10", async ({
  request,
  baseURL,
}) => {
  await tokens(request, baseURL!);
  const id = await publishWorkflow(request, {
    schemaVersion: 1,
    name: `CLI boom ${stamp()}`,
    steps: [
      {
        id: "boom",
        type: "code",
        config: { source: 'export default function () { throw new Error("boom"); }' },
      },
    ],
  });
  const r = await sluice(["run", "--workflow", id], { env: admin });
  expect(r.code, r.stdout + r.stderr).toBe(10);
  const env = r.json();
  expectRunEnvelope(env);
  expect(env).toMatchObject({
    ok: false,
    status: "failed",
    runStatus: "failed",
    error: { stepId: "boom" },
    steps: [
      {
        stepId: "boom",
        status: "failed",
        failureClass: "user",
        error: { message: expect.stringContaining("boom") },
      },
    ],
  });
  expect(r.events().map((e) => e.type)).toContain("step.failed");
});

test("run stops at a gate (needs_approval, exit 0); a tampered token is exit 20; resume approve completes", async ({
  request,
  baseURL,
}) => {
  await tokens(request, baseURL!);
  const id = await publishWorkflow(request, gateWorkflow(`CLI gate ${stamp()}`));
  const r = await sluice(["run", "--workflow", id, "--input", '{"release":"r1"}'], { env: admin });
  expect(r.code, r.stdout + r.stderr).toBe(0);
  const env = r.json();
  expectRunEnvelope(env);
  expect(env).toMatchObject({
    ok: true,
    status: "needs_approval",
    requiresApproval: { stepId: "ask", prompt: "Ship r1?", items: ["release r1"] },
  });
  const token = env.requiresApproval.resumeToken as string;
  expect(token).toMatch(/^wrf_rt_/);
  expect(r.events().map((e) => e.type)).toContain("approval.requested");

  const tampered = token.slice(0, -1) + (token.endsWith("A") ? "B" : "A");
  const wrong = await sluice(
    [
      "resume",
      "--execution-id",
      env.executionId,
      "--resume-token",
      tampered,
      "--decision",
      "approve",
    ],
    { env: admin },
  );
  expect(wrong.code).toBe(20);
  expect(wrong.json()).toMatchObject({ ok: false, executionId: env.executionId });

  const resumed = await sluice(
    ["resume", "--execution-id", env.executionId, "--resume-token", token, "--decision", "approve"],
    { env: admin },
  );
  expect(resumed.code, resumed.stdout + resumed.stderr).toBe(0);
  expectRunEnvelope(resumed.json());
  expect(resumed.json()).toMatchObject({
    ok: true,
    status: "ok",
    executionId: env.executionId,
    output: "shipped r1",
    decision: { status: "approved" },
  });
  const types = resumed.events().map((e) => e.type);
  expect(types).toContain("approval.decided");
  expect(types).toContain("run.finished");
  expect(types).not.toContain("approval.requested");

  // The gate is decided: the same token again is a contract violation.
  const twice = await sluice(
    [
      "resume",
      "--execution-id",
      env.executionId,
      "--resume-token",
      token,
      "--decision",
      "deny",
      "--reason",
      "late",
    ],
    { env: admin },
  );
  expect(twice.code).toBe(20);
});

test("propose opens a proposal (created); a stale base is exit 20, self-modification off is 30", async ({
  request,
  baseURL,
}) => {
  await tokens(request, baseURL!);
  const name = `CLI propose ${stamp()}`;
  const definition = greetWorkflow(name, { constraints: { allowSelfModification: true } });
  const wf = await workflowOf(await publishWorkflow(request, definition));
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), "sluice-propose-"));
  const file = path.join(dir, "next.json");
  const changed = structuredClone(definition);
  changed.steps[0]!.config.value = "hi {{ input.who }}";
  fs.writeFileSync(file, JSON.stringify(changed));

  const r = await sluice(
    [
      "propose",
      "--workflow-id",
      wf.slug,
      "--base-hash",
      wf.currentVersion.hash,
      "--definition",
      `@${file}`,
      "--summary",
      "Say hi",
    ],
    { env: admin },
  );
  expect(r.code, r.stdout).toBe(0);
  expect(r.json()).toMatchObject({ ok: true, status: "created", proposal: { status: "pending" } });
  expect(r.json().proposal.id).toMatch(/^prp_/);
  expect(r.json().url).toContain(`/workflows/${wf.id}/proposals/${r.json().proposal.id}`);

  const patch = await sluice(
    [
      "propose",
      "--workflow-id",
      wf.id,
      "--base-hash",
      `sha256:${"1".repeat(64)}`,
      "--patch",
      '[{"op":"replace","path":"/name","value":"Renamed"}]',
      "--summary",
      "Rename",
    ],
    { env: admin },
  );
  expect(patch.code).toBe(20);
  expect(patch.json().error.code).toBe("stale_base");

  const locked = await workflowOf(
    await publishWorkflow(request, greetWorkflow(`CLI locked ${stamp()}`)),
  );
  const off = await sluice(
    [
      "propose",
      "--workflow-id",
      locked.id,
      "--base-hash",
      "current",
      "--patch",
      '[{"op":"replace","path":"/name","value":"X"}]',
    ],
    { env: admin },
  );
  expect(off.code).toBe(30);
  expect(off.json().error.code).toBe("self_modification_disabled");

  const none = await sluice(["propose", "--workflow-id", wf.id], { env: admin });
  expect(none.code).toBe(10);

  // Every proposal names its base: missing or malformed --base-hash is a usage error (10)
  // before any request; "current" is taken and recorded as asked.
  const rename = ["--patch", '[{"op":"replace","path":"/name","value":"Named"}]'];
  const unnamed = await sluice(["propose", "--workflow-id", wf.id, ...rename], { env: admin });
  expect(unnamed.code).toBe(10);
  expect(unnamed.stdout + unnamed.stderr).toContain("--base-hash");
  const malformed = await sluice(
    ["propose", "--workflow-id", wf.id, "--base-hash", "sha256:abc", ...rename],
    { env: admin },
  );
  expect(malformed.code).toBe(10);
  expect(malformed.stdout + malformed.stderr).toContain("--base-hash");
  const current = await sluice(
    ["propose", "--workflow-id", wf.id, "--base-hash", "current", ...rename, "--summary", "Name"],
    { env: admin },
  );
  expect(current.code, current.stdout).toBe(0);
  const detail = await request.get(`/api/v1/proposals/${current.json().proposal.id}`, {
    headers: { authorization: `Bearer ${admin.SLUICE_TOKEN}` },
  });
  expect((await detail.json()).baseRequested).toBe("current");
});

test("sync plans a folder (dry run), applies it, then reports it unchanged", async ({
  request,
  baseURL,
}) => {
  await tokens(request, baseURL!);
  const s = stamp();
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), "sluice-sync-"));
  fs.writeFileSync(
    path.join(dir, `cli-sync-${s}-a.json`),
    JSON.stringify(greetWorkflow(`CLI sync A ${s}`)),
  );
  fs.writeFileSync(
    path.join(dir, "b.yaml"),
    `slug: cli-sync-${s}-b\nschemaVersion: 1\nname: CLI sync B ${s}\nsteps:\n  - id: a\n    type: transform\n    config: { value: 2 }\n`,
  );
  const ours = (plan: { slug: string; action: string }[]) =>
    plan
      .filter((p) => p.slug.startsWith(`cli-sync-${s}`))
      .map((p) => [p.slug, p.action])
      .sort();

  const dry = await sluice(["sync", dir, "--dry-run"], { env: admin });
  expect(dry.code, dry.stdout + dry.stderr).toBe(0);
  expect(dry.json()).toMatchObject({ ok: true, dryRun: true, applied: false });
  expect(ours(dry.json().plan)).toEqual([
    [`cli-sync-${s}-a`, "create"],
    [`cli-sync-${s}-b`, "create"],
  ]);
  const planned = dry.events().filter((e) => e.type === "sync.plan");
  expect(ours(planned as never)).toEqual(ours(dry.json().plan));
  expect((await sluice(["workflows", `cli-sync-${s}-a`], { env: admin })).code).toBe(10);

  const applied = await sluice(["sync", dir], { env: admin });
  expect(applied.code, applied.stdout).toBe(0);
  expect(applied.json()).toMatchObject({ dryRun: false, applied: true });
  expect(ours(applied.json().plan)).toEqual([
    [`cli-sync-${s}-a`, "create"],
    [`cli-sync-${s}-b`, "create"],
  ]);
  expect(applied.events().map((e) => e.type)).toContain("sync.applied");
  expect((await workflowOf(`cli-sync-${s}-b`)).currentVersion.version).toBe("1.0.0");

  const again = await sluice(["sync", dir], { env: admin });
  expect(ours(again.json().plan)).toEqual([
    [`cli-sync-${s}-a`, "unchanged"],
    [`cli-sync-${s}-b`, "unchanged"],
  ]);

  fs.writeFileSync(path.join(dir, "broken.yaml"), "steps: [");
  const broken = await sluice(["sync", dir], { env: admin });
  expect(broken.code).toBe(10);
  expect(broken.json().error.code).toBe("invalid_file");

  fs.rmSync(path.join(dir, "broken.yaml"));
  const asViewer = await sluice(["sync", dir, "--dry-run"], { env: viewer });
  expect(asViewer.code).toBe(30);
  expect(asViewer.json().error.code).toBe("forbidden");
});
