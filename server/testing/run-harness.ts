/**
 * Engine test harness: the real run-workflow functions served by the real SDK, driven by the real
 * embedded executor on a real database, with the real outbox relay delivering to it. Workflows
 * are created and started through the services, exactly as the UI and API do.
 */
import { and, asc, eq } from "drizzle-orm";
import { setProcessDb } from "@/db";
import { approvals, runEvents, runs, runSteps, tasks } from "@/db/schema";
import { createTestDb, type TestDb } from "@/db/testing";
import { createLogger } from "@/lib/log";
import { createWorkspaceFixture, type WorkspaceFixture } from "@/server/testing/harness";
import { createOutboxDeliverer } from "@/server/services/outbox/deliver";
import { setInProcessExecutor } from "@/server/services/outbox/in-process-executor";
import { startOutboxRelay, type RelayHandle } from "@/server/services/outbox/relay-runner";
import { createWorkflow } from "@/server/services/workflows/create-workflow";
import { publishWorkflow } from "@/server/services/workflows/publish-workflow";
import { saveDraft } from "@/server/services/workflows/save-draft";
import { startRun } from "@/server/services/runs/start-run";
import { inngest } from "@/inngest/client";
import { executorBridge, startHarness, type Harness } from "@/inngest/executor/testing";
import type { ExecutorOptions } from "@/inngest/executor/options";
import { functions } from "@/inngest/functions";
import { workflowEventHooks } from "@/server/boot";
import { setRuntimeClock, setInlineAfterParallel } from "@/server/services/step-execution/runtime";
import { env } from "@/env";

export interface RunHarness {
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
  /** Waits for the run's pending approval gate and returns it. */
  pendingApproval(runId: string): Promise<typeof approvals.$inferSelect>;
  /** Waits for the run's pending task and returns it. */
  pendingTask(runId: string): Promise<typeof tasks.$inferSelect>;
  events(runId: string): Promise<string[]>;
  close(): Promise<void>;
}

export interface RunHarnessOptions {
  /** Executor options over the harness defaults (which retry after 20 ms instead of 15 s+). */
  executor?: Partial<ExecutorOptions>;
  /**
   * false: run starts travel through the outbox and the relay, as with a real Inngest. Default:
   * the executor takes them inside the admitting transaction, as the embedded one does.
   */
  inProcess?: boolean;
  /** Run the executor's cron scheduler (schedule triggers fire on their own). */
  cron?: boolean;
  /** The outbox relay's poll interval (default 50 ms; it is also woken by every commit). */
  relayPollMs?: number;
}

export async function startRunHarness(
  label: string,
  opts: RunHarnessOptions = {},
): Promise<RunHarness> {
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
    cron: opts.cron,
  });
  routeExecutorOrigin(bridge.fetch);
  setInProcessExecutor(opts.inProcess === false ? undefined : h.executor);
  // Deadlines and expiries the engine computes must agree with the executor's (manual) timers.
  setRuntimeClock(h.clock.now);
  // The real server's scheduling needs the real server's tagging (RunPlan.inlineAfterParallel).
  setInlineAfterParallel(opts.executor?.parallelism === "inngest" ? false : undefined);
  const relay = startOutboxRelay({
    db: db.db,
    deliver: createOutboxDeliverer((events) => h.executor.send(events), workflowEventHooks()),
    log: createLogger({ component: "outbox-test" }),
    pollMs: opts.relayPollMs ?? 50,
  });
  const api: RunHarness = {
    db,
    ws,
    h,
    relay,
    ...runReads({ db, ws, until: h.until, advance: (ms) => h.clock.advance(ms) }),
    async close() {
      routeExecutorOrigin(undefined);
      setInProcessExecutor(undefined);
      setRuntimeClock(undefined);
      setInlineAfterParallel(undefined);
      // The relay a test may have swapped in (api.relay), not only the one started here: a relay
      // left running past the database's close logged "CONNECTION_ENDED" / "PGlite is closed".
      await api.relay.stop();
      if (api.relay !== relay) await relay.stop();
      await h.close();
      await db.close();
    },
  };
  return api;
}

/**
 * The app's one client makes its API calls (checkpoints) to 127.0.0.1:SLUICE_EXECUTOR_PORT, where
 * the embedded executor listens in production. Tests bind no socket there (files run in parallel,
 * and a developer's own executor may own the port): that origin goes to the harness's in-process
 * executor instead; every other URL passes through. (The SDK uses the global fetch when none is
 * given.) Without this, each checkpoint would fail and cost the SDK's ~1.7 s fallback. The target
 * lives on globalThis: a worker may load this module once per file, the patched fetch outlives it.
 */
const ROUTE = Symbol.for("sluice.engine-test.executor-route");
type RoutedGlobal = { [ROUTE]?: { target?: typeof fetch } };
function routeExecutorOrigin(target: typeof fetch | undefined): void {
  const g = globalThis as RoutedGlobal;
  if (g[ROUTE]) {
    g[ROUTE].target = target;
    return;
  }
  const slot: { target?: typeof fetch } = { target };
  g[ROUTE] = slot;
  const passThrough = globalThis.fetch;
  const origin = `http://127.0.0.1:${env.SLUICE_EXECUTOR_PORT}/`;
  globalThis.fetch = ((input: RequestInfo | URL, init?: RequestInit) => {
    const url = input instanceof Request ? input.url : String(input);
    return slot.target && url.startsWith(origin)
      ? slot.target(input, init)
      : passThrough(input, init);
  }) as typeof fetch;
}

/**
 * What tests do with runs through the services and read back from the app's tables, whatever
 * engine executes them (the embedded executor here, a real Inngest in inngest/conformance).
 */
export function runReads(o: {
  db: TestDb;
  ws: WorkspaceFixture;
  until: Harness["until"];
  /** Moves the engine's clock (the embedded executor's manual clock); absent = real time only. */
  advance?: (ms: number) => void;
}): Omit<RunHarness, "db" | "ws" | "h" | "relay" | "close"> {
  const { db, ws, until } = o;
  return {
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
      return until(
        async () => {
          if (opts.advanceMs) o.advance?.(opts.advanceMs);
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
    pendingApproval: (runId) =>
      until(async () => {
        const [a] = await db.db
          .select()
          .from(approvals)
          .where(and(eq(approvals.runId, runId), eq(approvals.status, "pending")));
        return a;
      }, `a pending approval in run ${runId}`),
    pendingTask: (runId) =>
      until(async () => {
        const [t] = await db.db
          .select()
          .from(tasks)
          .where(and(eq(tasks.runId, runId), eq(tasks.status, "pending")));
        return t;
      }, `a pending task in run ${runId}`),
    async events(runId) {
      const rows = await db.db
        .select({ type: runEvents.type, path: runEvents.stepPath })
        .from(runEvents)
        .where(and(eq(runEvents.runId, runId)))
        .orderBy(asc(runEvents.id));
      return rows.map((r) => (r.path ? `${r.type}:${r.path}` : r.type));
    },
  };
}
