/**
 * Child process for the engine crash test: the whole stack on one database (a PGlite folder or a
 * Postgres URL) — a node:http app serving the real Sluice functions, the embedded executor, the
 * outbox relay — as in production. `ENGINE_MODE=setup` also creates a workspace and a workflow and
 * starts one run. Every 100 ms the run's state is written to ENGINE_OUT (the parent cannot open a
 * PGlite folder this process holds).
 * The reliability suite (reliability.test.ts, bench/reliability.ts): `ENGINE_MODE=mix` starts
 * ENGINE_RUNS runs of a workflow with parallel branches, a delay, an approval gate and an http call
 * to ENGINE_STUB; `ENGINE_DECIDE=1` approves pending gates through the service; `ENGINE_MIX=1`
 * reports totals over every run instead of one run's state.
 */
import fs from "node:fs";
import http from "node:http";
import { and, asc, eq, inArray } from "drizzle-orm";
import { serve } from "inngest/node";
import { setProcessDb } from "@/db";
import { openDb } from "@/db/client";
import { migrateDb } from "@/db/migrate";
import {
  approvalDecisions,
  approvals,
  memberships,
  outbox,
  runEvents,
  runSteps,
  runs,
  triggers,
  workspaces,
} from "@/db/schema";
import { ConflictError, PreconditionFailedError } from "@/server/errors";
import { handleWebhook } from "@/server/http/hooks";
import { getRuntime } from "@/server/runtime";
import {
  admitterYieldRatio,
  startWebhookAdmitter,
} from "@/server/services/triggers/webhook-admitter";
import { decideApproval } from "@/server/services/approvals/decide-approval";
import { allowLocalStub } from "@/server/testing/allow-local-stub";
import { createTrigger } from "@/server/services/triggers/create-trigger";
import { newId } from "@/lib/ids";
import { emitEvents } from "@/server/services/events/emit-events";
import { createLogger, setLogLevel } from "@/lib/log";
import { workflowEventHooks } from "@/server/boot";
import { createOutboxDeliverer } from "@/server/services/outbox/deliver";
import { startOutboxRelay } from "@/server/services/outbox/relay-runner";
import { startRun } from "@/server/services/runs/start-run";
import { createWorkflow } from "@/server/services/workflows/create-workflow";
import { publishWorkflow } from "@/server/services/workflows/publish-workflow";
import { saveDraft } from "@/server/services/workflows/save-draft";
import { createWorkspaceFixture, makeCtx } from "@/server/testing/harness";
import { inngest } from "../../client";
import { createExecutor } from "../../executor/executor";
import { defaultBackoff } from "../../executor/options";
import { functions } from "../../functions";
import { waveTestHooks } from "../waves";

const env = process.env;
const g: { forgotten: boolean; hookPath?: string; pausedInWave?: boolean } = { forgotten: false };

const ANNOUNCE = {
  id: "announce",
  type: "emit_event",
  config: { event: "crash.done", data: { ok: true } },
};

/** A new workspace with this workflow published, and one run of it started; its id. */
async function publishAndStart(
  db: Parameters<typeof createWorkspaceFixture>[0],
  label: string,
  definition: { name: string } & Record<string, unknown>,
): Promise<string> {
  const ws = await createWorkspaceFixture(db, label);
  const wf = await createWorkflow({ ctx: ws.ctx("editor"), input: { name: definition.name } });
  await saveDraft({ ctx: ws.ctx("editor"), input: { workflowId: wf.id, definition } });
  await publishWorkflow({ ctx: ws.ctx("editor"), input: { workflowId: wf.id } });
  return (await startRun({ ctx: ws.ctx("editor"), input: { workflowId: wf.id } })).runId;
}

async function main() {
  setLogLevel("warn");
  const target = env.ENGINE_DB!;
  const handle = await openDb(
    target.startsWith("postgres") ? { url: target, maxConnections: 6 } : { dataDir: target },
  );
  await migrateDb(handle);
  setProcessDb(handle);
  const db = handle.db;
  const inngestHandler = serve({ client: inngest, functions });
  // The webhook receiver too, for the reliability suite's deliveries across a database restart.
  const app = http.createServer((req, res) =>
    req.url?.startsWith("/api/hooks/") ? void serveWebhook(req, res) : inngestHandler(req, res),
  );
  await new Promise<void>((r) => app.listen(Number(env.ENGINE_APP_PORT), "127.0.0.1", r));
  const executor = createExecutor({
    db: handle,
    appUrls: [`http://127.0.0.1:${env.ENGINE_APP_PORT}/api/inngest`],
    log: createLogger({ component: "engine-crash-child", pid: process.pid }),
    leaseMs: Number(env.ENGINE_LEASE_MS ?? 1_000),
    pollIntervalMs: 100,
    // ENGINE_BACKOFF=production: the real 15 s+ retry backoff, so a database outage is ridden out
    // as in production (100 ms spends the function's 3 retries within the outage).
    backoff: env.ENGINE_BACKOFF === "production" ? defaultBackoff : () => 100,
  });
  await executor.start({ port: Number(env.SLUICE_EXECUTOR_PORT) });
  await executor.synced();
  // `emit` mode commits an event and then never delivers it (the parent kills this process): the
  // state a crash between commit and delivery leaves behind.
  if (env.ENGINE_MODE !== "emit")
    startOutboxRelay({
      db,
      deliver: createOutboxDeliverer((events) => inngest.send(events), workflowEventHooks()),
      log: createLogger({ component: "relay" }),
      pollMs: 100,
    });

  // Accepted webhook deliveries become runs here, as in server/boot.ts.
  if (env.ENGINE_MIX === "1")
    startWebhookAdmitter({
      db,
      ...getRuntime(),
      log: createLogger({ component: "admitter" }),
      yieldRatio: admitterYieldRatio(handle.driver),
    });

  let runId = env.ENGINE_RUN_ID;
  if (env.ENGINE_MODE === "emit") {
    const ws = await createWorkspaceFixture(db, "Outbox");
    const wf = await createWorkflow({ ctx: ws.ctx("editor"), input: { name: "Listener" } });
    await saveDraft({
      ctx: ws.ctx("editor"),
      input: {
        workflowId: wf.id,
        definition: {
          schemaVersion: 1,
          name: "Listener",
          inputs: { order: { type: "string", required: true } },
          steps: [{ id: "got", type: "transform", config: { value: "{{ input.order }}" } }],
          output: "{{ steps.got.output.data }}",
        },
      },
    });
    await publishWorkflow({ ctx: ws.ctx("editor"), input: { workflowId: wf.id } });
    await db.insert(triggers).values({
      id: newId("trg"),
      workspaceId: ws.workspaceId,
      workflowId: wf.id,
      kind: "event",
      name: "On paid",
      eventName: "order.paid",
      config: { event: "order.paid", mapping: { order: "$.data.id" }, input: {} },
      createdBy: ws.members.editor,
    });
    await emitEvents({
      ctx: ws.ctx("editor"),
      input: { name: "order.paid", data: { id: "o-42" }, id: "evt-o-42" },
    });
    runId = "";
  }
  if (env.ENGINE_MODE === "resume" && env.ENGINE_REDELIVER === "1") {
    // After the first delivery, forget it once: the relay delivers the same event again, as after
    // a crash between sending and marking it delivered.
    const forget = setInterval(() => {
      void (async () => {
        if (g.forgotten) return;
        const [row] = await db.select().from(outbox).where(eq(outbox.name, "order.paid"));
        const started = await db
          .select({ id: runs.id })
          .from(runs)
          .where(eq(runs.triggerType, "event"));
        if (row?.deliveredAt && started.length > 0) {
          g.forgotten = true;
          clearInterval(forget);
          await db
            .update(outbox)
            .set({ deliveredAt: null, availableAt: new Date() })
            .where(eq(outbox.id, row.id));
        }
      })().catch(() => undefined);
    }, 50);
  }
  if (env.ENGINE_MODE === "setup") {
    runId = await publishAndStart(db, "Crash", {
      schemaVersion: 1,
      name: "Crashy",
      steps: [
        { id: "a", type: "transform", config: { value: 1 } },
        { id: "pause", type: "delay", config: { duration: "3s" } },
        {
          id: "b",
          type: "code",
          config: { source: "export default function () { return 2 }" },
        },
        ANNOUNCE,
      ],
    });
  }
  if (env.ENGINE_MODE === "chain") {
    // A long chain of pure steps: on the per-step path (the test sets SLUICE_ENGINE_VERSION=1)
    // with checkpointing (the default) the SDK runs them inline in a few requests and checkpoints
    // each one, so a kill lands in the middle of a checkpointed run.
    runId = await publishAndStart(db, "Chain", {
      schemaVersion: 1,
      name: "Long chain",
      constraints: { maxSteps: 400 },
      steps: [
        ...Array.from({ length: 150 }, (_, i) => ({
          id: `s${i}`,
          type: "transform",
          config: { value: i },
        })),
        ANNOUNCE,
      ],
    });
  }
  if (env.ENGINE_MODE === "wave") {
    // Pure chains around a side effect: a0…a9 (first wave) ─▶ mid (emit_event) ─▶ b0…b19 (a wave
    // of its own) ─▶ announce. ENGINE_WAVE_PAUSE=1 holds the b wave after its rows committed and
    // before its result is memoized, so the parent can kill the process right there.
    if (env.ENGINE_WAVE_PAUSE === "1")
      waveTestHooks.afterRecord = async (_runId, paths) => {
        if (!paths.includes("b0")) return;
        g.pausedInWave = true;
        await new Promise(() => undefined);
      };
    const chain = (prefix: string, n: number) =>
      Array.from({ length: n }, (_, i) => ({
        id: `${prefix}${i}`,
        type: "transform",
        config: { value: `${prefix}{{ lastOutput.data }}` },
      }));
    runId = await publishAndStart(db, "Wave", {
      schemaVersion: 1,
      name: "Waves",
      steps: [
        ...chain("a", 10),
        { id: "mid", type: "emit_event", config: { event: "crash.mid", data: { ok: true } } },
        ...chain("b", 20),
        ANNOUNCE,
      ],
    });
  }
  if (env.ENGINE_MODE === "mix") await setUpMix(db, Number(env.ENGINE_RUNS ?? 20));
  if (env.ENGINE_DECIDE === "1") decideApprovalsContinually(db);
  if (env.ENGINE_MIX === "1") {
    const write = async () => writeState(await mixReport(db));
    await write();
    setInterval(() => void write().catch(() => undefined), 200);
    process.stdout.write("ready\n");
    return;
  }
  const report = async () => {
    const [run] = runId
      ? await db.select({ status: runs.status }).from(runs).where(eq(runs.id, runId))
      : [];
    const steps = await db
      .select({
        path: runSteps.path,
        attempt: runSteps.attempt,
        status: runSteps.status,
        output: runSteps.output,
      })
      .from(runSteps)
      .where(eq(runSteps.runId, runId!))
      .orderBy(asc(runSteps.createdAt));
    const events = await db
      .select({ name: outbox.name, deliveredAt: outbox.deliveredAt, attempts: outbox.attempts })
      .from(outbox)
      .where(inArray(outbox.name, ["crash.done", "crash.mid", "order.paid"]));
    const stepEvents = await db
      .select({ type: runEvents.type, path: runEvents.stepPath })
      .from(runEvents)
      .where(and(eq(runEvents.runId, runId!), inArray(runEvents.type, ["step.completed"])));
    const eventRuns = await db
      .select({ id: runs.id, status: runs.status, output: runs.output })
      .from(runs)
      .where(eq(runs.triggerType, "event"));
    writeState({
      runId,
      status: run?.status,
      steps,
      events,
      eventRuns,
      redelivered: g.forgotten,
      pausedInWave: g.pausedInWave ?? false,
      completedEvents: stepEvents.map((e) => e.path),
    });
  };
  await report();
  setInterval(() => void report().catch(() => undefined), 100);
  process.stdout.write("ready\n");
}

/** Atomically replaces ENGINE_OUT (the parent polls it). */
function writeState(state: unknown): void {
  fs.writeFileSync(`${env.ENGINE_OUT}.tmp`, JSON.stringify(state));
  fs.renameSync(`${env.ENGINE_OUT}.tmp`, env.ENGINE_OUT!);
}

type Db = Parameters<typeof createWorkspaceFixture>[0];

/**
 * The reliability suite's workflow: parallel branches (an http call to the parent's stub server,
 * a delay, an approval gate) joined at the end.
 *
 *            ┌─▶ call (http) ─┐
 *   start ───┼─▶ pause (2 s) ─┼─▶ join
 *            └─▶ gate ────────┘ (approved)
 */
const MIX_PATHS = ["start", "call", "pause", "gate", "join"];

async function setUpMix(db: Db, count: number): Promise<void> {
  const ws = await createWorkspaceFixture(db, "Mix");
  // Admission would queue runs past 5 per user; the suite starts them all at once.
  await db
    .update(workspaces)
    .set({ settings: { maxActiveRunsPerUser: 1000, maxActiveRunsPerWorkspace: 1000 } })
    .where(eq(workspaces.id, ws.workspaceId));
  await allowLocalStub(ws);
  const definition = {
    schemaVersion: 1,
    name: "Mix",
    constraints: { maxConcurrentRuns: 1000 },
    steps: [
      { id: "start", type: "transform", config: { value: 1 } },
      {
        id: "call",
        type: "http",
        config: { method: "POST", url: `${env.ENGINE_STUB}/call?run={{ run.id }}`, body: { n: 1 } },
        retry: { maxAttempts: 5, backoffMs: 1000 },
      },
      { id: "pause", type: "delay", config: { duration: "2s" } },
      { id: "gate", type: "approval", config: { prompt: "Go?" } },
      { id: "join", type: "transform", config: { value: 2 } },
    ],
    edges: [
      { from: "start", to: "call" },
      { from: "start", to: "pause" },
      { from: "start", to: "gate" },
      { from: "call", to: "join" },
      { from: "pause", to: "join" },
      { from: "gate", port: "approved", to: "join" },
    ],
  };
  const wf = await createWorkflow({ ctx: ws.ctx("editor"), input: { name: definition.name } });
  await saveDraft({ ctx: ws.ctx("editor"), input: { workflowId: wf.id, definition } });
  await publishWorkflow({ ctx: ws.ctx("editor"), input: { workflowId: wf.id } });
  const hook = await createTrigger({
    ctx: ws.ctx("editor"),
    input: {
      kind: "webhook",
      workflowId: wf.id,
      name: "Deliveries",
      config: { verification: { preset: "none" }, rateLimit: { perMinute: 60_000, burst: 10_000 } },
    },
  });
  g.hookPath = hook.trigger.path!;
  await Promise.all(
    Array.from({ length: count }, () =>
      startRun({ ctx: ws.ctx("editor"), input: { workflowId: wf.id } }),
    ),
  );
}

/**
 * Approves every pending gate as the workspace's approver through the decision service, as the UI
 * and tRPC do (the "api" channel would also want the run page's resume token).
 */
function decideApprovalsContinually(db: Db): void {
  const tick = async () => {
    const pending = await db.select().from(approvals).where(eq(approvals.status, "pending"));
    for (const a of pending) {
      const [m] = await db
        .select({ userId: memberships.userId })
        .from(memberships)
        .where(and(eq(memberships.workspaceId, a.workspaceId), eq(memberships.role, "approver")));
      const ctx = makeCtx(
        db,
        { type: "user", userId: m!.userId },
        {
          id: a.workspaceId,
          role: "approver",
        },
      );
      await decideApproval({ ctx, input: { approvalId: a.id, approve: true }, via: "ui" }).catch(
        (e: unknown) => {
          // Decided meanwhile (a double decision is refused): nothing to do.
          if (!(e instanceof ConflictError || e instanceof PreconditionFailedError)) throw e;
        },
      );
    }
  };
  const loop = () =>
    void tick()
      .catch((e: unknown) => process.stderr.write(`decide failed: ${(e as Error).message}\n`))
      .finally(() => setTimeout(loop, 200));
  loop();
}

/** Every run, step row, approval and webhook delivery of the database, summed up for the parent. */
async function mixReport(db: Db) {
  const allRuns = await db
    .select({ id: runs.id, status: runs.status, triggerType: runs.triggerType, error: runs.error })
    .from(runs);
  const steps = await db
    .select({ runId: runSteps.runId, path: runSteps.path, status: runSteps.status })
    .from(runSteps);
  const gates = await db.select({ id: approvals.id, status: approvals.status }).from(approvals);
  const decisions = await db
    .select({ approvalId: approvalDecisions.approvalId })
    .from(approvalDecisions);
  const completed = new Map<string, string[]>();
  for (const s of steps.filter((x) => x.status === "completed"))
    completed.set(s.runId, [...(completed.get(s.runId) ?? []), s.path]);
  const expected = [...MIX_PATHS].sort().join(",");
  const byStatus: Record<string, number> = {};
  for (const r of allRuns) byStatus[r.status] = (byStatus[r.status] ?? 0) + 1;
  return {
    hookPath: g.hookPath ?? (await db.select({ path: triggers.path }).from(triggers))[0]?.path,
    runs: allRuns.length,
    byStatus,
    webhookRuns: allRuns.filter((r) => r.triggerType === "webhook").length,
    stepRows: steps.length,
    /** Runs whose completed steps are exactly the five paths, each once. */
    runsWithEveryStepOnce: allRuns.filter(
      (r) => [...(completed.get(r.id) ?? [])].sort().join(",") === expected,
    ).length,
    /** (run, path) pairs with more than one completed row: a step result recorded twice. */
    duplicatedResults: [...completed.values()].reduce(
      (n, paths) => n + paths.length - new Set(paths).size,
      0,
    ),
    approvals: gates.length,
    pendingApprovals: gates.filter((a) => a.status === "pending").length,
    decisions: decisions.length,
    /** Why runs failed (the first few), for a failing scenario's message. */
    failures: allRuns
      .filter((r) => r.status === "failed")
      .slice(0, 3)
      .map((r) => r.error),
  };
}

/** node:http → the real /api/hooks route handler. */
async function serveWebhook(req: http.IncomingMessage, res: http.ServerResponse): Promise<void> {
  const chunks: Buffer[] = [];
  for await (const c of req) chunks.push(c as Buffer);
  const url = new URL(req.url!, "http://127.0.0.1");
  const headers = new Headers();
  for (const [k, v] of Object.entries(req.headers)) if (typeof v === "string") headers.set(k, v);
  const answer = await handleWebhook(
    new Request(url, {
      method: req.method,
      headers,
      ...(chunks.length ? { body: Buffer.concat(chunks) } : {}),
    }),
    { params: Promise.resolve({ path: url.pathname.slice("/api/hooks/".length).split("/") }) },
  ).catch(() => new Response("{}", { status: 503 }));
  res.writeHead(answer.status, { "content-type": "application/json" });
  res.end(Buffer.from(await answer.arrayBuffer()));
}

main().catch((e) => {
  process.stderr.write(`engine-crash-app failed: ${(e as Error).stack}\n`);
  process.exit(1);
});
