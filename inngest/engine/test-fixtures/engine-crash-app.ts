/**
 * Child process for the engine crash test: the whole stack on one database (a PGlite folder or a
 * Postgres URL) — a node:http app serving the real Sluice functions, the embedded executor, the
 * outbox relay — as in production. `ENGINE_MODE=setup` also creates a workspace and a workflow and
 * starts one run. Every 100 ms the run's state is written to ENGINE_OUT (the parent cannot open a
 * PGlite folder this process holds).
 */
import fs from "node:fs";
import http from "node:http";
import { asc, eq, inArray } from "drizzle-orm";
import { serve } from "inngest/node";
import { setProcessDb } from "@/db";
import { openDb } from "@/db/client";
import { migrateDb } from "@/db/migrate";
import { outbox, runSteps, runs, triggers } from "@/db/schema";
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
import { createWorkspaceFixture } from "@/server/testing/harness";
import { inngest } from "../../client";
import { createExecutor } from "../../executor/executor";
import { functions } from "../../functions";

const env = process.env;
const g = { forgotten: false };

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
  const app = http.createServer(serve({ client: inngest, functions }));
  await new Promise<void>((r) => app.listen(Number(env.ENGINE_APP_PORT), "127.0.0.1", r));
  const executor = createExecutor({
    db: handle,
    appUrls: [`http://127.0.0.1:${env.ENGINE_APP_PORT}/api/inngest`],
    log: createLogger({ component: "engine-crash-child", pid: process.pid }),
    leaseMs: 1_000,
    pollIntervalMs: 100,
    backoff: () => 100,
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
    // A long chain of pure steps: with checkpointing (the default) the SDK runs them inline in a
    // few requests and checkpoints each one, so a kill lands in the middle of a checkpointed run.
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
  const report = async () => {
    const [run] = runId
      ? await db.select({ status: runs.status }).from(runs).where(eq(runs.id, runId))
      : [];
    const steps = await db
      .select({ path: runSteps.path, attempt: runSteps.attempt, status: runSteps.status })
      .from(runSteps)
      .where(eq(runSteps.runId, runId!))
      .orderBy(asc(runSteps.createdAt));
    const events = await db
      .select({ name: outbox.name, deliveredAt: outbox.deliveredAt, attempts: outbox.attempts })
      .from(outbox)
      .where(inArray(outbox.name, ["crash.done", "order.paid"]));
    const eventRuns = await db
      .select({ id: runs.id, status: runs.status, output: runs.output })
      .from(runs)
      .where(eq(runs.triggerType, "event"));
    fs.writeFileSync(
      `${env.ENGINE_OUT}.tmp`,
      JSON.stringify({
        runId,
        status: run?.status,
        steps,
        events,
        eventRuns,
        redelivered: g.forgotten,
      }),
    );
    fs.renameSync(`${env.ENGINE_OUT}.tmp`, env.ENGINE_OUT!);
  };
  await report();
  setInterval(() => void report().catch(() => undefined), 100);
  process.stdout.write("ready\n");
}

main().catch((e) => {
  process.stderr.write(`engine-crash-app failed: ${(e as Error).stack}\n`);
  process.exit(1);
});
