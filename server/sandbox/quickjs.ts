import "server-only";
import path from "node:path";
import { Worker } from "node:worker_threads";

/**
 * Runs a `code` step's module in QuickJS (WASM) inside a worker thread. The worker keeps the
 * interpreter off the server's event loop (a guest loop cannot stall other requests). Workers are
 * kept warm in a small pool: starting one and loading QuickJS costs ~80 ms, a job on a warm one
 * a few ms. Each job still gets a fresh WASM instance, memory, runtime and context inside the
 * worker (quickjs-worker.mjs), so jobs share nothing. Two time limits: QuickJS's interrupt
 * handler stops the guest at the deadline with a clean error; if that ever fails, the worker is
 * terminated shortly after (and so is a cancelled job's, or one whose sandbox failed).
 *
 * The worker is a plain .mjs file loaded from `<cwd>/server/sandbox` at run time (like the
 * migrations folder): it is not part of the Next bundle.
 */

export const WORKER_FILE = path.join(process.cwd(), "server", "sandbox", "quickjs-worker.mjs");

export interface QuickJsRunOptions {
  /** An ES module with `export default function (input, ctx) { … }`. */
  source: string;
  input: unknown;
  /** Plain data exposed as the function's second argument. */
  context: Record<string, unknown>;
  timeoutMs: number;
  memoryBytes: number;
  /** QuickJS stack limit. Default 1 MiB. */
  stackBytes?: number;
  maxLogBytes?: number;
  maxResultBytes?: number;
  signal?: AbortSignal;
}

export interface QuickJsLog {
  level: "log" | "info" | "warn" | "error" | "debug";
  message: string;
}

export type QuickJsErrorKind =
  | "syntax"
  | "load"
  | "runtime"
  | "timeout"
  | "memory"
  | "stack"
  | "no_default"
  | "never_settled"
  | "result"
  | "result_too_large"
  | "cancelled"
  | "internal";

export interface QuickJsError {
  kind: QuickJsErrorKind;
  name: string;
  message: string;
  stack?: string;
  line?: number;
  column?: number;
}

export type QuickJsOutcome =
  | { ok: true; result: unknown; logs: QuickJsLog[]; logsTruncated: boolean; durationMs: number }
  | {
      ok: false;
      error: QuickJsError;
      logs: QuickJsLog[];
      logsTruncated: boolean;
      durationMs: number;
    };

type WithoutDuration<T> = T extends unknown ? Omit<T, "durationMs"> : never;

export const FILENAME = "step.js";
/** Time to start a worker and load QuickJS, on top of the guest's own limit. */
const HARD_KILL_GRACE_MS = 3_000;
/** Idle warm workers kept; more start when steps run concurrently and end when they finish. */
const MAX_IDLE_WORKERS = 2;
/** A worker is replaced after this many jobs, bounding anything the host side might accumulate. */
const MAX_JOBS_PER_WORKER = 1_000;

type WorkerReply = {
  id: number;
  ok: boolean;
  resultJson?: string;
  error?: QuickJsError;
  logs: QuickJsLog[];
  logsTruncated: boolean;
};

interface PooledWorker {
  worker: Worker;
  jobs: number;
  /** Set while a job runs; the worker's exit or error settles it. */
  onFailure?: (error: QuickJsError) => void;
  onReply?: (reply: WorkerReply) => void;
}

const idle: PooledWorker[] = [];

function startWorker(): PooledWorker {
  const worker = new Worker(WORKER_FILE, { env: {}, stdout: true, stderr: true });
  // Emscripten may print on a crash; nothing the guest does reaches these streams.
  worker.stdout.resume();
  worker.stderr.resume();
  const pooled: PooledWorker = { worker, jobs: 0 };
  const gone = (error: QuickJsError) => {
    const i = idle.indexOf(pooled);
    if (i >= 0) idle.splice(i, 1);
    pooled.onFailure?.(error);
  };
  worker.on("message", (msg: WorkerReply | { ready: true }) => {
    if ("id" in msg) pooled.onReply?.(msg);
  });
  worker.on("error", (e) => {
    const stack = e instanceof RangeError && /call stack/i.test(e.message);
    gone({
      kind: stack ? "stack" : "internal",
      name: e.name,
      message: stack ? "Maximum call stack size exceeded" : `The sandbox crashed: ${e.message}`,
    });
  });
  worker.on("exit", (code) =>
    gone({
      kind: "internal",
      name: "Error",
      message: `The sandbox exited unexpectedly (code ${code})`,
    }),
  );
  return pooled;
}

function acquire(): PooledWorker {
  const pooled = idle.pop() ?? startWorker();
  pooled.worker.ref();
  return pooled;
}

function release(pooled: PooledWorker, reusable: boolean): void {
  pooled.onFailure = undefined;
  pooled.onReply = undefined;
  pooled.jobs++;
  if (reusable && pooled.jobs < MAX_JOBS_PER_WORKER && idle.length < MAX_IDLE_WORKERS) {
    // An idle worker must not keep the process alive.
    pooled.worker.unref();
    idle.push(pooled);
  } else {
    void pooled.worker.terminate();
  }
}

let nextJobId = 1;

/** The converter runs inside the guest's realm; its output is checked again, never trusted. */
function parseResult(
  json: string | undefined,
): { ok: true; value: unknown } | { ok: false; error: QuickJsError } {
  try {
    return { ok: true, value: JSON.parse(json ?? "null") as unknown };
  } catch {
    return {
      ok: false,
      error: { kind: "result", name: "TypeError", message: "The result is not valid JSON" },
    };
  }
}

/** Thread ids of the idle warm workers (tests: which worker the next job reuses). */
export function idleQuickJsWorkers(): number[] {
  return idle.map((p) => p.worker.threadId);
}

export function runQuickJs(options: QuickJsRunOptions): Promise<QuickJsOutcome> {
  const started = Date.now();
  return new Promise<QuickJsOutcome>((resolve) => {
    let done = false;
    const pooled = acquire();
    const id = nextJobId++;
    const finish = (outcome: WithoutDuration<QuickJsOutcome>, reusable: boolean) => {
      if (done) return;
      done = true;
      clearTimeout(hardKill);
      options.signal?.removeEventListener("abort", onAbort);
      release(pooled, reusable);
      resolve({ ...outcome, durationMs: Date.now() - started } as QuickJsOutcome);
    };
    // Any failure of the sandbox itself ends its worker: its state is no longer known good.
    const fail = (error: QuickJsError) =>
      finish({ ok: false, error, logs: [], logsTruncated: false }, false);
    const hardKill = setTimeout(
      () =>
        fail({
          kind: "timeout",
          name: "InternalError",
          message: `The code did not finish within ${options.timeoutMs} ms`,
        }),
      options.timeoutMs + HARD_KILL_GRACE_MS,
    );
    const onAbort = () =>
      fail({ kind: "cancelled", name: "AbortError", message: "The code step was cancelled" });
    pooled.onFailure = fail;
    pooled.onReply = (msg) => {
      if (msg.id !== id) return;
      if (msg.ok) {
        const result = parseResult(msg.resultJson);
        if (!result.ok) return fail(result.error);
        finish(
          { ok: true, result: result.value, logs: msg.logs, logsTruncated: msg.logsTruncated },
          true,
        );
      } else {
        const { error } = msg;
        finish(
          { ok: false, error: error!, logs: msg.logs, logsTruncated: msg.logsTruncated },
          error?.kind !== "internal",
        );
      }
    };
    if (options.signal?.aborted) return onAbort();
    options.signal?.addEventListener("abort", onAbort, { once: true });
    pooled.worker.postMessage({
      id,
      job: {
        source: options.source,
        inputJson: JSON.stringify(options.input ?? null),
        contextJson: JSON.stringify(options.context),
        timeoutMs: options.timeoutMs,
        memoryBytes: options.memoryBytes,
        stackBytes: options.stackBytes ?? 1024 * 1024,
        maxLogBytes: options.maxLogBytes ?? 64 * 1024,
        maxResultBytes: options.maxResultBytes ?? 1024 * 1024,
        filename: FILENAME,
      },
    });
  });
}
