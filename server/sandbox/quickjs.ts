import "server-only";
import path from "node:path";
import { Worker } from "node:worker_threads";

/**
 * Runs a `code` step's module in QuickJS (WASM) inside a worker thread. The worker keeps the
 * interpreter off the server's event loop (a guest loop cannot stall other requests), and ending
 * it frees the whole WASM heap. Two time limits: QuickJS's interrupt handler stops the guest at
 * the deadline with a clean error; if that ever fails, the worker is terminated shortly after.
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
/** Time to start the worker and compile the WASM module, on top of the guest's own limit. */
const HARD_KILL_GRACE_MS = 3_000;

export function runQuickJs(options: QuickJsRunOptions): Promise<QuickJsOutcome> {
  const started = Date.now();
  return new Promise<QuickJsOutcome>((resolve) => {
    let done = false;
    const worker = new Worker(WORKER_FILE, {
      workerData: {
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
      env: {},
      stdout: true,
      stderr: true,
    });
    // Emscripten may print on a crash; nothing the guest does reaches these streams.
    worker.stdout.resume();
    worker.stderr.resume();
    const finish = (outcome: WithoutDuration<QuickJsOutcome>) => {
      if (done) return;
      done = true;
      clearTimeout(hardKill);
      options.signal?.removeEventListener("abort", onAbort);
      void worker.terminate();
      resolve({ ...outcome, durationMs: Date.now() - started } as QuickJsOutcome);
    };
    const fail = (error: QuickJsError) =>
      finish({ ok: false, error, logs: [], logsTruncated: false });
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
    if (options.signal?.aborted) onAbort();
    else options.signal?.addEventListener("abort", onAbort, { once: true });

    worker.on(
      "message",
      (msg: {
        ok: boolean;
        resultJson?: string;
        error?: QuickJsError;
        logs: QuickJsLog[];
        logsTruncated: boolean;
      }) => {
        if (msg.ok) {
          finish({
            ok: true,
            result: JSON.parse(msg.resultJson ?? "null") as unknown,
            logs: msg.logs,
            logsTruncated: msg.logsTruncated,
          });
        } else {
          finish({
            ok: false,
            error: msg.error!,
            logs: msg.logs,
            logsTruncated: msg.logsTruncated,
          });
        }
      },
    );
    worker.on("error", (e) => {
      const stack = e instanceof RangeError && /call stack/i.test(e.message);
      fail({
        kind: stack ? "stack" : "internal",
        name: e.name,
        message: stack ? "Maximum call stack size exceeded" : `The sandbox crashed: ${e.message}`,
      });
    });
    worker.on("exit", (code) => {
      fail({
        kind: "internal",
        name: "Error",
        message: `The sandbox exited unexpectedly (code ${code})`,
      });
    });
  });
}
