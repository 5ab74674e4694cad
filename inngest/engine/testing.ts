/**
 * Engine test harness: the real run-workflow functions served by the real SDK, driven by the real
 * embedded executor on a real database, with the real outbox relay delivering to it. Workflows
 * are created and started through the services, exactly as the UI and API do.
 */
import { and, asc, eq } from "drizzle-orm";
import { setProcessDb } from "@/db";
import { runEvents, runs, runSteps } from "@/db/schema";
import { createTestDb, type TestDb } from "@/db/testing";
import { createLogger } from "@/lib/log";
import { createWorkspaceFixture, type WorkspaceFixture } from "@/server/testing/harness";
import { createOutboxDeliverer } from "@/server/services/outbox/deliver";
import { startOutboxRelay, type RelayHandle } from "@/server/services/outbox/relay-runner";
import { createWorkflow } from "@/server/services/workflows/create-workflow";
import { publishWorkflow } from "@/server/services/workflows/publish-workflow";
import { saveDraft } from "@/server/services/workflows/save-draft";
import { startRun } from "@/server/services/runs/start-run";
import { inngest } from "../client";
import { executorBridge, startHarness, type Harness } from "../executor/testing";
import type { ExecutorOptions } from "../executor/options";
import { functions } from "../functions";
import { workflowEventHooks } from "@/server/boot";
import { setEngineClock } from "./runtime";

export interface EngineHarness {
  db: TestDb;
  ws: WorkspaceFixture;
  h: Harness;
  relay: RelayHandle;
  /** Creates and publishes a workflow; returns its id. */
  workflow(definition: Record<string, unknown>, fx?: WorkspaceFixture): Promise<string>;
  start(
    workflowId: string,
    input?: Record<string, unknown>,
    fx?: WorkspaceFixture,
    extra?: Record<string, unknown>,
  ): Promise<string>;
  /** Waits until the run reaches one of `statuses` (advancing the executor clock if asked). */
  waitFor(
    runId: string,
    statuses: string[],
    opts?: { advanceMs?: number; timeoutMs?: number },
  ): Promise<typeof runs.$inferSelect>;
  steps(runId: string): Promise<(typeof runSteps.$inferSelect)[]>;
  events(runId: string): Promise<string[]>;
  close(): Promise<void>;
}

export interface EngineHarnessOptions {
  /** Executor options over the harness defaults (which retry after 20 ms instead of 15 s+). */
  executor?: Partial<ExecutorOptions>;
}

export async function startEngineHarness(
  label: string,
  opts: EngineHarnessOptions = {},
): Promise<EngineHarness> {
  const db = await createTestDb(label);
  setProcessDb(db);
  const ws = await createWorkspaceFixture(db.db, "Engine");
  const bridge = executorBridge();
  const h = await startHarness({
    client: inngest,
    functions,
    bridge,
    db,
    label,
    executor: { backoff: () => 20, ...opts.executor },
  });
  // Deadlines and expiries the engine computes must agree with the executor's (manual) timers.
  setEngineClock(h.clock.now);
  const relay = startOutboxRelay({
    db: db.db,
    deliver: createOutboxDeliverer((events) => h.executor.send(events), workflowEventHooks()),
    log: createLogger({ component: "outbox-test" }),
    pollMs: 50,
  });
  const api: EngineHarness = {
    db,
    ws,
    h,
    relay,
    async workflow(definition, fx = ws) {
      const wf = await createWorkflow({
        ctx: fx.ctx("editor"),
        input: { name: String(definition.name ?? "W") },
      });
      await saveDraft({ ctx: fx.ctx("editor"), input: { workflowId: wf.id, definition } });
      await publishWorkflow({ ctx: fx.ctx("editor"), input: { workflowId: wf.id } });
      return wf.id;
    },
    async start(workflowId, input = {}, fx = ws, extra = {}) {
      const r = await startRun({ ctx: fx.ctx("editor"), input: { workflowId, input, ...extra } });
      return r.runId;
    },
    async waitFor(runId, statuses, opts = {}) {
      return h.until(
        async () => {
          if (opts.advanceMs) h.clock.advance(opts.advanceMs);
          const [r] = await db.db.select().from(runs).where(eq(runs.id, runId));
          return r && statuses.includes(r.status) ? r : undefined;
        },
        `run ${runId} to become ${statuses.join("|")}`,
        opts.timeoutMs ?? 30_000,
      );
    },
    steps: (runId) =>
      db.db
        .select()
        .from(runSteps)
        .where(eq(runSteps.runId, runId))
        .orderBy(asc(runSteps.createdAt), asc(runSteps.path)),
    async events(runId) {
      const rows = await db.db
        .select({ type: runEvents.type, path: runEvents.stepPath })
        .from(runEvents)
        .where(and(eq(runEvents.runId, runId)))
        .orderBy(asc(runEvents.id));
      return rows.map((r) => (r.path ? `${r.type}:${r.path}` : r.type));
    },
    async close() {
      setEngineClock(undefined);
      await relay.stop();
      await h.close();
      await db.close();
    },
  };
  return api;
}
