import type { StepConfig } from "@/lib/workflow/steps";
import { runQuickJs, type QuickJsError } from "@/server/sandbox/quickjs";
import { remainingMs } from "./failures";
import { StepFailure, type ActionHandler } from "./types";

export type CodeStepConfig = StepConfig<"code">;

const KIND_LABEL: Partial<Record<QuickJsError["kind"], string>> = {
  syntax: "Syntax error",
  load: "Error while loading the module",
  runtime: "Error",
  result: "The result is not JSON",
  no_default: "No default export",
  never_settled: "Unsettled promise",
  result_too_large: "The result is too large",
};

/** A sandbox outcome's error as a classified step failure (shared with the tool step's transform). */
export function sandboxFailure(
  error: QuickJsError,
  timeoutMs: number,
  memoryMb: number,
  details: Record<string, unknown> = {},
  prefix = "",
): StepFailure {
  const { message, cls } = describe(error, timeoutMs, memoryMb);
  return new StepFailure(`${prefix}${message}`, cls, {
    kind: error.kind,
    ...(error.line !== undefined ? { line: error.line, column: error.column } : {}),
    ...(error.stack ? { stack: error.stack } : {}),
    ...details,
  });
}

function describe(
  error: QuickJsError,
  timeoutMs: number,
  memoryMb: number,
): { message: string; cls: "user" | "operational" | "internal" } {
  const at =
    error.line !== undefined
      ? ` (line ${error.line}${error.column !== undefined ? `, column ${error.column}` : ""})`
      : "";
  switch (error.kind) {
    case "timeout":
      return {
        message: `The code ran longer than its ${timeoutMs} ms time limit and was stopped${at}`,
        cls: "user",
      };
    case "memory":
      return {
        message: `The code used more than its ${memoryMb} MiB memory limit${at}`,
        cls: "user",
      };
    case "stack":
      return {
        message: `The code exceeded the stack limit (runaway recursion?)${at}`,
        cls: "user",
      };
    case "cancelled":
      return { message: error.message, cls: "operational" };
    case "internal":
      return { message: `The sandbox failed: ${error.message}`, cls: "internal" };
    default: {
      const label = KIND_LABEL[error.kind] ?? "Error";
      const name =
        error.name && error.name !== "Error" && error.kind !== "result" ? `${error.name}: ` : "";
      return { message: `${label}${at}: ${name}${error.message}`, cls: "user" };
    }
  }
}

/**
 * The `code` step: `export default function (input, ctx) { … }` (sync or async) in a QuickJS
 * sandbox with a time limit (default 10 s), a memory limit (default 64 MiB) and no host access.
 * `input` is the config's resolved `input`; `ctx` holds { runId, workflowId, stepId, attempt }.
 * The return value must be JSON (undefined becomes null); console output is captured into
 * meta.logs (64 KiB at most). Errors name the line and column in the step's source. Guest errors,
 * time and memory overruns are user errors (the same code would fail again).
 */
export const codeHandler: ActionHandler<CodeStepConfig> = async (ctx) => {
  const config = ctx.config;
  const timeoutMs = remainingMs(ctx, config.timeoutMs);
  const outcome = await runQuickJs({
    source: config.source,
    input: config.input ?? null,
    context: {
      runId: ctx.runId,
      workflowId: ctx.workflowId,
      stepId: ctx.stepId,
      attempt: ctx.attempt,
    },
    timeoutMs,
    memoryBytes: config.memoryMb * 1024 * 1024,
    signal: ctx.signal,
  });
  const meta = {
    logs: outcome.logs,
    logsTruncated: outcome.logsTruncated,
    durationMs: outcome.durationMs,
  };
  if (outcome.ok) return { data: outcome.result, meta };
  throw sandboxFailure(outcome.error, timeoutMs, config.memoryMb, meta);
};
