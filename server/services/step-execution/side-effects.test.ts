import os from "node:os";
import path from "node:path";
import { eq, sql } from "drizzle-orm";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { executorExecutions, runEvents, runs, workspaces } from "@/db/schema";
import { createSecret } from "@/server/services/secrets/create-secret";
import { updateWorkspacePolicies } from "@/server/services/settings/update-workspace-policies";
import { enqueueWorkflowEvents } from "@/server/services/run-state/workflow-events";
import { createWorkspaceFixture } from "@/server/testing/harness";
import { processesInNamespace } from "@/server/sandbox/testing";
import { sendJson, startHttpServer, type LocalServer } from "@/server/testing/local-http";
import { startRunHarness, type RunHarness } from "@/server/testing/run-harness";

let e: RunHarness;
let api: LocalServer;
let failuresLeft = 0;
const SECRET = "sk-live-0123456789abcdef";

beforeAll(async () => {
  e = await startRunHarness("side-effects");
  api = await startHttpServer((req, res, body) => {
    if (req.url?.startsWith("/flaky") && failuresLeft > 0) {
      failuresLeft--;
      return sendJson(res, 503, { error: "try later" });
    }
    if (req.url?.startsWith("/limited"))
      return sendJson(res, 429, { error: "slow down" }, { "retry-after": "2" });
    if (req.url?.startsWith("/bad")) return sendJson(res, 400, { error: "bad request" });
    // Echoes what it received, secret included: the engine must redact it from what it stores.
    return sendJson(res, 200, {
      got: JSON.parse(body || "{}"),
      auth: req.headers.authorization ?? null,
      idem: req.headers["idempotency-key"] ?? null,
    });
  });
  await updateWorkspacePolicies({
    ctx: e.ws.ctx("admin"),
    input: {
      scriptStepsEnabled: false,
      allowedPrivateHosts: ["127.0.0.1"],
      forbiddenStepTypes: [],
    },
  });
  await createSecret({ ctx: e.ws.ctx("admin"), input: { name: "API_KEY", value: SECRET } });
});
afterAll(async () => {
  await api?.close();
  await e?.close();
});

describe("side-effect steps in runs", () => {
  it("retries operational failures with backoff, records each attempt, and sends a stable Idempotency-Key per attempt", async () => {
    failuresLeft = 2;
    const wf = await e.workflow({
      schemaVersion: 1,
      name: "Flaky",
      steps: [
        {
          id: "call",
          type: "http",
          config: { method: "POST", url: `${api.origin}/flaky`, body: { n: 1 } },
          retry: { maxAttempts: 3, backoffMs: [1000, 2000] },
        },
      ],
      output: "{{ steps.call.output.data.status }}",
    });
    const runId = await e.start(wf);
    const run = await e.waitFor(runId, ["completed", "failed"], {
      advanceMs: 1_000,
      timeoutMs: 30_000,
    });
    expect(run.status, JSON.stringify(run.error)).toBe("completed");
    expect(run.output).toBe(200);
    const attempts = (await e.steps(runId)).filter((s) => s.path === "call");
    expect(attempts.map((a) => [a.attempt, a.status, a.failureClass])).toEqual([
      [1, "failed", "operational"],
      [2, "failed", "operational"],
      [3, "completed", null],
    ]);
    const keys = api.requests
      .filter((r) => r.url === "/flaky")
      .map((r) => r.headers["idempotency-key"]);
    expect(keys).toEqual([`${runId}:call:1`, `${runId}:call:2`, `${runId}:call:3`]);
  });

  it("does not retry user errors (4xx) and fails the run with the status in the error", async () => {
    const wf = await e.workflow({
      schemaVersion: 1,
      name: "Bad request",
      steps: [
        {
          id: "call",
          type: "http",
          config: { url: `${api.origin}/bad` },
          retry: { maxAttempts: 5, backoffMs: 1000 },
        },
      ],
    });
    const run = await e.waitFor(await e.start(wf), ["completed", "failed"]);
    expect(run.status).toBe("failed");
    const attempts = (await e.steps(run.id)).filter((s) => s.path === "call");
    expect(attempts).toHaveLength(1);
    expect(attempts[0]!.failureClass).toBe("user");
    expect(JSON.stringify(attempts[0]!.error)).toContain("400");
  });

  it("uses secrets in requests but never stores them: outputs, inputs, events are redacted", async () => {
    const wf = await e.workflow({
      schemaVersion: 1,
      name: "Secretive",
      steps: [
        {
          id: "call",
          type: "http",
          config: {
            method: "POST",
            url: `${api.origin}/echo`,
            headers: { authorization: "Bearer {{ secrets.API_KEY }}" },
            body: { key: "{{ secrets.API_KEY }}" },
          },
        },
        {
          id: "after",
          type: "transform",
          config: { value: "{{ steps.call.output.data.body.auth }}" },
        },
      ],
      output: "{{ steps.call.output.data.body }}",
    });
    const runId = await e.start(wf);
    const run = await e.waitFor(runId, ["completed", "failed"]);
    expect(run.status, JSON.stringify(run.error)).toBe("completed");
    // The server really received the secret…
    const received = api.requests.find((r) => r.url === "/echo")!;
    expect(received.headers.authorization).toBe(`Bearer ${SECRET}`);
    // …but nothing Sluice stored contains it, in plain, base64 or URL-encoded form.
    const stored = JSON.stringify([
      run,
      await e.steps(runId),
      await e.db.db.select().from(runEvents).where(eq(runEvents.runId, runId)),
    ]);
    for (const form of [SECRET, Buffer.from(SECRET).toString("base64"), encodeURIComponent(SECRET)])
      expect(stored).not.toContain(form);
    expect(stored).toContain("[REDACTED:API_KEY]");
  });

  it("fails clearly when a referenced secret does not exist", async () => {
    const wf = await e.workflow({
      schemaVersion: 1,
      name: "Missing secret",
      steps: [
        {
          id: "call",
          type: "http",
          config: { url: `${api.origin}/echo`, headers: { authorization: "{{ secrets.NOPE }}" } },
        },
      ],
    });
    const run = await e.waitFor(await e.start(wf), ["completed", "failed"]);
    expect(run.status).toBe("failed");
    const [call] = await e.steps(run.id);
    expect(call!.failureClass).toBe("user");
    expect(JSON.stringify(call!.error)).toMatch(/NOPE/);
  });

  it("waits on a delay (durable timer) and resumes", async () => {
    const wf = await e.workflow({
      schemaVersion: 1,
      name: "Delay",
      steps: [
        { id: "pause", type: "delay", config: { duration: "10m" } },
        { id: "after", type: "transform", config: { value: 1 } },
      ],
    });
    const runId = await e.start(wf);
    await e.waitFor(runId, ["waiting"]);
    const [pause] = await e.steps(runId);
    expect(pause).toMatchObject({ path: "pause", status: "waiting" });
    e.h.clock.advance(10 * 60_000 + 1000);
    expect((await e.waitFor(runId, ["completed", "failed"])).status).toBe("completed");
  });

  it("a delay whose templated duration resolves to nonsense fails with one sentence naming the field", async () => {
    const wf = await e.workflow({
      schemaVersion: 1,
      name: "Bad delay",
      inputs: { d: { type: "string", required: true } },
      steps: [{ id: "pause", type: "delay", config: { duration: "{{ input.d }}" } }],
    });
    const run = await e.waitFor(await e.start(wf, { d: "soon-ish" }), ["completed", "failed"]);
    expect(run.status).toBe("failed");
    const [pause] = await e.steps(run.id);
    const message = (pause!.error as { message: string }).message;
    expect(message).toMatch(
      /^The delay's config is invalid after resolving templates: config\.duration: \S/,
    );
    // Was zod's issue array as JSON.
    expect(message).not.toMatch(/[[{]|"code"/);
  });

  it("resumes wait_for_event on a matching event only, and returns null on timeout", async () => {
    const wf = await e.workflow({
      schemaVersion: 1,
      name: "Wait",
      inputs: { order: { type: "string", required: true } },
      steps: [
        {
          id: "paid",
          type: "wait_for_event",
          config: {
            event: "order.paid",
            match: { "data.orderId": "{{ input.order }}" },
            timeout: "30m",
          },
        },
      ],
      output: "{{ steps.paid.output.data }}",
    });
    const runId = await e.start(wf, { order: "A-1" });
    await e.waitFor(runId, ["waiting"]);
    await e.db.db.transaction((tx) =>
      enqueueWorkflowEvents(tx, e.ws.workspaceId, [
        { name: "order.paid", data: { orderId: "B-2" } },
      ]),
    );
    await e.db.db.transaction((tx) =>
      enqueueWorkflowEvents(tx, e.ws.workspaceId, [
        { name: "order.shipped", data: { orderId: "A-1" } },
      ]),
    );
    await e.db.db.transaction((tx) =>
      enqueueWorkflowEvents(tx, e.ws.workspaceId, [
        { name: "order.paid", data: { orderId: "A-1", total: 42 } },
      ]),
    );
    const run = await e.waitFor(runId, ["completed", "failed"]);
    expect(run.status).toBe("completed");
    expect(run.output).toMatchObject({ name: "order.paid", data: { orderId: "A-1", total: 42 } });

    const timeoutRun = await e.start(wf, { order: "never" });
    await e.waitFor(timeoutRun, ["waiting"]);
    e.h.clock.advance(30 * 60_000 + 1000);
    const done = await e.waitFor(timeoutRun, ["completed", "failed"]);
    expect(done.status).toBe("completed");
    expect(done.output).toBeNull();
  });

  it("emit_event from one run resumes another run's wait (outbox written with the step)", async () => {
    const waiter = await e.workflow({
      schemaVersion: 1,
      name: "Waiter",
      steps: [
        {
          id: "w",
          type: "wait_for_event",
          config: { event: "deploy.done", match: { "data.env": "prod" }, timeout: "1h" },
        },
      ],
      output: "{{ steps.w.output.data.data.version }}",
    });
    const emitter = await e.workflow({
      schemaVersion: 1,
      name: "Emitter",
      steps: [
        {
          id: "say",
          type: "emit_event",
          config: { event: "deploy.done", data: { env: "prod", version: "9.9.9" } },
        },
      ],
    });
    const waitRun = await e.start(waiter);
    await e.waitFor(waitRun, ["waiting"]);
    const emitRun = await e.start(emitter);
    expect((await e.waitFor(emitRun, ["completed", "failed"])).status).toBe("completed");
    const done = await e.waitFor(waitRun, ["completed", "failed"]);
    expect(done.output).toBe("9.9.9");
    const [row] = await e.db.db.select().from(runs).where(eq(runs.id, waitRun));
    expect(row!.status).toBe("completed");
  });
});

describe("script steps in runs", () => {
  it("are refused unless the workspace enables them, then run with their output captured", async () => {
    const wf = await e.workflow({
      schemaVersion: 1,
      name: "Script",
      steps: [
        {
          id: "sh",
          type: "script",
          config: { command: "echo hello; exit 3", allowNonZeroExit: true },
        },
      ],
      output: "{{ steps.sh.output.data }}",
    });
    const refused = await e.waitFor(await e.start(wf), ["completed", "failed"]);
    expect(refused.status).toBe("failed");
    expect(JSON.stringify((await e.steps(refused.id))[0]!.error)).toMatch(
      /script steps are disabled|not enabled/i,
    );

    await updateWorkspacePolicies({
      ctx: e.ws.ctx("admin"),
      input: {
        scriptStepsEnabled: true,
        allowedPrivateHosts: ["127.0.0.1"],
        forbiddenStepTypes: [],
      },
    });
    const ok = await e.waitFor(await e.start(wf), ["completed", "failed"]);
    expect(ok.status, JSON.stringify(ok.error)).toBe("completed");
    expect(ok.output).toMatchObject({ exitCode: 3, stdout: "hello\n" });
  });

  it("maps a secret to an env var of a different name; a non-zero exit fails the step by default", async () => {
    await updateWorkspacePolicies({
      ctx: e.ws.ctx("admin"),
      input: {
        scriptStepsEnabled: true,
        allowedPrivateHosts: ["127.0.0.1"],
        forbiddenStepTypes: [],
      },
    });
    await createSecret({
      ctx: e.ws.ctx("admin"),
      input: { name: "DEPLOY_TOKEN", value: "tok-abcdef-123456" },
    });
    const mapped = await e.workflow({
      schemaVersion: 1,
      name: "Mapped secret",
      steps: [
        {
          id: "sh",
          type: "script",
          config: {
            command: 'test "$API_TOKEN" = "tok-abcdef-123456" && echo "token ok: $API_TOKEN"',
            secrets: { API_TOKEN: "DEPLOY_TOKEN" },
          },
        },
      ],
      output: "{{ steps.sh.output.data.stdout }}",
    });
    const ok = await e.waitFor(await e.start(mapped), ["completed", "failed"]);
    expect(ok.status, JSON.stringify(ok.error)).toBe("completed");
    expect(ok.output).toBe("token ok: [REDACTED]\n");

    const failing = await e.workflow({
      schemaVersion: 1,
      name: "Non-zero",
      steps: [{ id: "sh", type: "script", config: { command: "echo broken >&2; exit 7" } }],
    });
    const failed = await e.waitFor(await e.start(failing), ["completed", "failed"]);
    expect(failed.status).toBe("failed");
    const [step] = await e.steps(failed.id);
    expect(step!.failureClass).toBe("user");
    expect(step!.attempt).toBe(1); // a user failure is not retried
    expect(step!.error).toMatchObject({
      message: expect.stringMatching(/^Script exited with code 7: broken/),
    });
  });

  it("stops a running script when the run is cancelled (SIGTERM, then SIGKILL)", async () => {
    await updateWorkspacePolicies({
      ctx: e.ws.ctx("admin"),
      input: {
        scriptStepsEnabled: true,
        allowedPrivateHosts: ["127.0.0.1"],
        forbiddenStepTypes: [],
      },
    });
    const wf = await e.workflow({
      schemaVersion: 1,
      name: "Long script",
      steps: [
        {
          id: "sh",
          type: "script",
          config: { command: `sleep 120 & readlink /proc/self/ns/pid > "$HOME/ns"; wait` },
        },
      ],
    });
    const runId = await e.start(wf);
    const fs = await import("node:fs");
    // The run's scratch folder (HOME, /scratch in the sandbox); its pid namespace names the sandbox.
    const nsFile = path.join(os.tmpdir(), "sluice-runs", runId, "ns");
    const ns = await e.h.until(
      () =>
        fs.existsSync(nsFile) ? fs.readFileSync(nsFile, "utf8").trim() || undefined : undefined,
      "the script to start",
      20_000,
    );
    const { cancelRun } = await import("@/server/services/runs/cancel-run");
    const started = Date.now();
    await cancelRun({ ctx: e.ws.ctx("editor"), input: { runId } });
    const run = await e.waitFor(runId, ["cancelled"], { timeoutMs: 30_000 });
    expect(run.status).toBe("cancelled");
    expect(Date.now() - started).toBeLessThan(25_000);
    // The step attempt did not complete normally.
    const sh = (await e.steps(runId)).find((s) => s.path === "sh")!;
    expect(sh.status).not.toBe("completed");
    // The script's own child process is gone too: nothing is left in its sandbox.
    await e.h.until(
      async () => (await processesInNamespace(ns)).length === 0,
      "the script's sandbox to be emptied",
      20_000,
    );
  });

  /*
   * cancel ──▶ run cancel_requested ──▶ execution cancelled ──▶ finalize (deferred: script alive)
   *                 │ SIGTERM (trapped: the script keeps going)
   *                 └──── 10 s ──▶ SIGKILL ──▶ attempt ends ──▶ run cancelled ──▶ slot freed
   */
  it("keeps a run whose script ignores SIGTERM cancelling, with its admission slot, until SIGKILL ends the process", async () => {
    const fx = await createWorkspaceFixture(e.db.db, "Stubborn script");
    await e.db.db
      .update(workspaces)
      .set({ settings: { maxActiveRunsPerUser: 1 } })
      .where(eq(workspaces.id, fx.workspaceId));
    await updateWorkspacePolicies({
      ctx: fx.ctx("admin"),
      input: { scriptStepsEnabled: true, allowedPrivateHosts: [], forbiddenStepTypes: [] },
    });
    const fs = await import("node:fs");
    const wf = await e.workflow(
      {
        schemaVersion: 1,
        name: "Stubborn",
        steps: [
          {
            id: "sh",
            type: "script",
            // A TERM handler that only notes the signal: the loop goes on until SIGKILL.
            config: {
              command: `trap 'echo term > "$HOME/term"' TERM; readlink /proc/self/ns/pid > "$HOME/ns"; while true; do sleep 0.2; done`,
            },
          },
        ],
      },
      fx,
    );
    const quick = await e.workflow(
      {
        schemaVersion: 1,
        name: "Queued behind",
        steps: [{ id: "t", type: "transform", config: { value: 1 } }],
      },
      fx,
    );
    const runId = await e.start(wf, {}, fx);
    const stamp = path.join(os.tmpdir(), "sluice-runs", runId);
    const ns = await e.h.until(
      () =>
        fs.existsSync(`${stamp}/ns`)
          ? fs.readFileSync(`${stamp}/ns`, "utf8").trim() || undefined
          : undefined,
      "the script to start",
      20_000,
    );
    const alive = async () => (await processesInNamespace(ns)).length > 0;
    const { cancelRun } = await import("@/server/services/runs/cancel-run");
    await cancelRun({ ctx: fx.ctx("editor"), input: { runId } });
    const behind = await e.start(quick, {}, fx);

    // The script got SIGTERM and ignored it, and the executor already cancelled the execution
    // and ran the finalizer: the run must still be cancelling and hold the only slot.
    await e.h.until(() => fs.existsSync(`${stamp}/term`), "SIGTERM to reach the script", 20_000);
    await e.h.until(
      async () =>
        (
          await e.db.db
            .select({ status: executorExecutions.status })
            .from(executorExecutions)
            .where(
              sql`${executorExecutions.functionId} like '%finalize-cancelled-run' and ${executorExecutions.event} #>> '{data,event,data,runId}' = ${runId}`,
            )
        ).some((r) => r.status === "completed"),
      "the cancelled execution to be finalized",
      20_000,
    );
    const status = async (id: string) =>
      (await e.db.db.select({ s: runs.status }).from(runs).where(eq(runs.id, id)))[0]!.s;
    expect(await alive()).toBe(true);
    expect(await status(runId)).toBe("cancel_requested");
    expect(await status(behind)).toBe("queued");

    // SIGKILL (10 s after SIGTERM) ends it; only then is the run cancelled and the slot handed on.
    const run = await e.waitFor(runId, ["cancelled"], { timeoutMs: 40_000 });
    expect(run.status).toBe("cancelled");
    await e.h.until(async () => !(await alive()), "the script's sandbox to be gone", 5_000);
    const sh = (await e.steps(runId)).find((s) => s.path === "sh")!;
    expect(sh.error).toMatchObject({ message: expect.stringMatching(/stopped/) });
    expect((await e.waitFor(behind, ["completed"], { timeoutMs: 30_000 })).status).toBe(
      "completed",
    );
  });
});
