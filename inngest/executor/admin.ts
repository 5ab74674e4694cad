/**
 * The admin API: what the UI (later) and the tests read. In-process TypeScript functions; server.ts
 * exposes the same over HTTP JSON on the executor port.
 */
import { and, asc, desc, eq, lt, type SQL } from "drizzle-orm";
import {
  executorApps,
  executorEvents,
  executorFunctions,
  executorHistory,
  executorJobs,
  executorExecutions,
  executorSteps,
  EXECUTOR_EXECUTION_STATUSES,
  type ExecutorExecutionStatus,
} from "../../db/schema/executor";
import { inTx, type ExecutorContext } from "./context";
import { cancelExecution } from "./lifecycle";
import { syncApp, type SyncResult } from "./registry";

export interface FunctionInfo {
  id: string;
  appId: string;
  appUrl: string | null;
  name: string | null;
  status: string;
  errors: string[];
  triggers: unknown[];
  config: Record<string, unknown>;
  updatedAt: string;
}

export interface ExecutionSummary {
  id: string;
  functionId: string;
  status: ExecutorExecutionStatus;
  eventId: string | null;
  eventName: string;
  createdAt: string;
  startedAt: string | null;
  endedAt: string | null;
  parentRunId: string | null;
}

export interface StepInfo {
  id: string;
  name: string | null;
  /** completed | failed | running | sleeping | waiting | invoking */
  status: string;
  op: string | null;
  output: unknown;
  completedAt: string | null;
  /** SDK calls that ran this step (including retries). */
  attempts: number;
  errors: Array<Record<string, unknown>>;
  durationMs: number | null;
}

export interface ExecutionDetail extends ExecutionSummary {
  event: Record<string, unknown>;
  output: unknown;
  error: Record<string, unknown> | null;
  durationMs: number | null;
  steps: StepInfo[];
  history: Array<{
    type: string;
    stepId: string | null;
    stepName: string | null;
    attempt: number;
    error: Record<string, unknown> | null;
    data: Record<string, unknown> | null;
    startedAt: string | null;
    durationMs: number | null;
    at: string;
  }>;
  jobs: Array<{
    kind: string;
    stepId: string | null;
    attempt: number;
    runAt: string;
    leased: boolean;
  }>;
}

export interface ListExecutionsQuery {
  status?: ExecutorExecutionStatus;
  functionId?: string;
  eventId?: string;
  limit?: number;
  /** Run id to page from (runs are listed newest first). */
  before?: string;
}

const iso = (d: Date | null | undefined) => (d ? d.toISOString() : null);
const TERMINAL: ExecutorExecutionStatus[] = ["completed", "failed", "cancelled"];

export interface AdminApi {
  listFunctions(): Promise<FunctionInfo[]>;
  listExecutions(q?: ListExecutionsQuery): Promise<ExecutionSummary[]>;
  getExecution(id: string): Promise<ExecutionDetail | undefined>;
  cancelExecution(id: string, reason?: string): Promise<{ cancelled: boolean }>;
  /** Syncs the given serve URLs (default: the configured ones). */
  sync(urls?: string[]): Promise<SyncResult[]>;
  listEvents(q?: { name?: string; limit?: number }): Promise<
    Array<{
      id: string;
      name: string;
      payload: unknown;
      duplicateOf: string | null;
      receivedAt: string;
    }>
  >;
  /** Resolves with the run once it reaches one of `statuses` (default: any terminal status). */
  waitForExecution(
    id: string,
    opts?: { timeoutMs?: number; statuses?: ExecutorExecutionStatus[] },
  ): Promise<ExecutionDetail>;
}

export function createAdminApi(
  ex: ExecutorContext,
  onExecutionFinished: (listener: (runId: string) => void) => () => void,
): AdminApi {
  async function getExecution(id: string): Promise<ExecutionDetail | undefined> {
    const [run] = await ex.db
      .select()
      .from(executorExecutions)
      .where(eq(executorExecutions.id, id));
    if (!run) return undefined;
    const [steps, history, jobs] = await Promise.all([
      ex.db
        .select()
        .from(executorSteps)
        .where(eq(executorSteps.runId, id))
        .orderBy(asc(executorSteps.seq)),
      ex.db
        .select()
        .from(executorHistory)
        .where(eq(executorHistory.runId, id))
        .orderBy(asc(executorHistory.id)),
      ex.db
        .select()
        .from(executorJobs)
        .where(eq(executorJobs.runId, id))
        .orderBy(asc(executorJobs.runAt)),
    ]);
    const stepCalls = (stepId: string) =>
      history.filter(
        (h) =>
          h.stepId === stepId && ["step.completed", "step.errored", "step.failed"].includes(h.type),
      );
    const stepInfo = (
      stepId: string,
      base: Omit<StepInfo, "attempts" | "errors" | "durationMs">,
    ): StepInfo => {
      const calls = stepCalls(stepId);
      return {
        ...base,
        attempts: calls.length,
        errors: calls.filter((h) => h.error).map((h) => h.error!),
        durationMs: calls.reduce<number | null>(
          (sum, h) => (h.durationMs === null ? sum : (sum ?? 0) + h.durationMs),
          null,
        ),
      };
    };
    const memoised = steps.map((s) =>
      stepInfo(s.stepId, {
        id: s.stepId,
        name: s.name,
        status: s.op === "StepFailed" || isErrorMemo(s.output) ? "failed" : "completed",
        op: s.op,
        output: s.output,
        completedAt: iso(s.createdAt),
      }),
    );
    const pendingStatus: Record<string, string> = {
      StepPlanned: "running",
      Sleep: "sleeping",
      WaitForEvent: "waiting",
      InvokeFunction: "invoking",
    };
    const pending = Object.entries(run.pending).map(([stepId, p]) =>
      stepInfo(stepId, {
        id: stepId,
        name: p.name ?? null,
        status: pendingStatus[p.op] ?? p.op,
        op: p.op,
        output: null,
        completedAt: null,
      }),
    );
    return {
      ...summary(run),
      event: run.event,
      output: run.output,
      error: run.error,
      durationMs:
        run.startedAt && run.endedAt ? run.endedAt.getTime() - run.startedAt.getTime() : null,
      steps: [...memoised, ...pending],
      history: history.map((h) => ({
        type: h.type,
        stepId: h.stepId,
        stepName: h.stepName,
        attempt: h.attempt,
        error: h.error,
        data: h.data,
        startedAt: iso(h.startedAt),
        durationMs: h.durationMs,
        at: h.createdAt.toISOString(),
      })),
      jobs: jobs.map((j) => ({
        kind: j.kind,
        stepId: j.stepId,
        attempt: j.attempt,
        runAt: j.runAt.toISOString(),
        leased: Boolean(j.leaseUntil),
      })),
    };
  }

  return {
    async listFunctions() {
      const rows = await ex.db
        .select({ fn: executorFunctions, appUrl: executorApps.url })
        .from(executorFunctions)
        .leftJoin(executorApps, eq(executorApps.id, executorFunctions.appId))
        .orderBy(asc(executorFunctions.id));
      return rows.map(({ fn, appUrl }) => ({
        id: fn.id,
        appId: fn.appId,
        appUrl,
        name: fn.name,
        status: fn.status,
        errors: fn.errors,
        triggers: (fn.config.triggers as unknown[]) ?? [],
        config: fn.config,
        updatedAt: fn.updatedAt.toISOString(),
      }));
    },

    async listExecutions(q = {}) {
      if (q.status && !EXECUTOR_EXECUTION_STATUSES.includes(q.status))
        throw new Error(`unknown status "${q.status}"`);
      const where: SQL[] = [];
      if (q.status) where.push(eq(executorExecutions.status, q.status));
      if (q.functionId) where.push(eq(executorExecutions.functionId, q.functionId));
      if (q.eventId) where.push(eq(executorExecutions.eventId, q.eventId));
      if (q.before) where.push(lt(executorExecutions.id, q.before));
      const rows = await ex.db
        .select()
        .from(executorExecutions)
        .where(where.length ? and(...where) : undefined)
        .orderBy(desc(executorExecutions.id))
        .limit(Math.min(Math.max(q.limit ?? 50, 1), 500));
      return rows.map(summary);
    },

    getExecution,

    async cancelExecution(id, reason = "cancelled through the admin API") {
      const cancelled = await inTx(ex, (c) => cancelExecution(c, id, reason));
      return { cancelled };
    },

    async sync(urls) {
      const list = urls ?? ex.opts.appUrls;
      const results: SyncResult[] = [];
      for (const url of list) results.push(await syncApp(ex, url));
      return results;
    },

    async listEvents(q = {}) {
      const rows = await ex.db
        .select()
        .from(executorEvents)
        .where(q.name ? eq(executorEvents.name, q.name) : undefined)
        .orderBy(desc(executorEvents.id))
        .limit(Math.min(Math.max(q.limit ?? 50, 1), 500));
      return rows.map((r) => ({
        id: r.id,
        name: r.name,
        payload: r.payload,
        duplicateOf: r.duplicateOf,
        receivedAt: r.receivedAt.toISOString(),
      }));
    },

    async waitForExecution(id, opts = {}) {
      const statuses = opts.statuses ?? TERMINAL;
      const timeoutMs = opts.timeoutMs ?? 10_000;
      const deadline = Date.now() + timeoutMs;
      let wakeUp: (() => void) | undefined;
      const off = onExecutionFinished((runId) => {
        if (runId === id) wakeUp?.();
      });
      try {
        for (;;) {
          const run = await getExecution(id);
          if (run && statuses.includes(run.status)) return run;
          const left = deadline - Date.now();
          if (left <= 0) {
            throw new Error(
              `run ${id} did not reach ${statuses.join("|")} within ${timeoutMs} ms (status: ${run?.status ?? "missing"})`,
            );
          }
          // Woken at once by a local finish; the short poll covers other transitions and processes.
          await new Promise<void>((resolve) => {
            const t = setTimeout(resolve, Math.min(left, 25));
            wakeUp = () => {
              clearTimeout(t);
              resolve();
            };
          });
        }
      } finally {
        off();
      }
    },
  };
}

function summary(run: typeof executorExecutions.$inferSelect): ExecutionSummary {
  return {
    id: run.id,
    functionId: run.functionId,
    status: run.status,
    eventId: run.eventId,
    eventName: String(run.event.name ?? ""),
    createdAt: run.createdAt.toISOString(),
    startedAt: iso(run.startedAt),
    endedAt: iso(run.endedAt),
    parentRunId: run.parentRunId,
  };
}

function isErrorMemo(v: unknown): boolean {
  return Boolean(
    v && typeof v === "object" && "error" in (v as object) && Object.keys(v as object).length === 1,
  );
}
