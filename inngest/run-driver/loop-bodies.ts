import "server-only";
import type { StepConfig, TemplateContext } from "@/lib/workflow";
import {
  beginAttempt,
  endAttempt,
  type AttemptKey,
} from "@/server/services/run-state/step-records";
import { engineNow, engineRuntime } from "./runtime";
import { failStep, message, resolve } from "./step-bodies";

/** Server-side bodies of the `loop` step (the iterations run in the orchestrator). */

/** A loop's items resolved and checked (pure; the proposal dry run uses it too). */
export function resolveLoopStart(
  config: unknown,
  context: TemplateContext,
):
  | { error: string }
  | {
      items: unknown[];
      concurrency: number;
      workflow: string | null;
      version: string | null;
      input: unknown;
    } {
  let c: StepConfig<"loop">;
  try {
    c = resolve("loop", config, context) as StepConfig<"loop">;
  } catch (e) {
    return { error: `The loop's config is invalid: ${message(e)}` };
  }
  if (!Array.isArray(c.items))
    return {
      error: `The loop's items must be an array, got ${c.items === null ? "null" : typeof c.items}`,
    };
  if (c.items.length > c.maxItems)
    return {
      error: `The loop has ${c.items.length} items, more than its maxItems (${c.maxItems})`,
    };
  return {
    items: c.items as unknown[],
    concurrency: c.concurrency,
    workflow: c.workflow ?? null,
    version: c.version ?? null,
    input: c.input ?? null,
  };
}

export async function beginLoopBody(a: {
  key: AttemptKey;
  config: unknown;
  context: TemplateContext;
}) {
  const { db } = await engineRuntime();
  const start = resolveLoopStart(a.config, a.context);
  if ("error" in start) return failStep(a.key, start.error);
  await beginAttempt(db, a.key, {
    input: { items: start.items.length, concurrency: start.concurrency },
    now: engineNow(),
  });
  return start;
}

export async function endLoopBody(a: {
  key: AttemptKey;
  outcome: { kind: string; output?: unknown; error?: unknown };
}) {
  const { db } = await engineRuntime();
  const o = a.outcome;
  await endAttempt(
    db,
    a.key,
    o.kind === "completed"
      ? { status: "completed", output: o.output, port: "done" }
      : o.kind === "failed"
        ? {
            status: "failed",
            error: (o.error as Record<string, unknown>) ?? { message: "An iteration failed" },
            failureClass: "user",
          }
        : { status: "cancelled", error: { message: "An iteration was cancelled" } },
    engineNow(),
  );
  return { ok: true };
}
