import "server-only";
import type { StepConfig, TemplateContext } from "@/lib/workflow";
import { isPlainObject } from "@/lib/workflow/json";
import {
  beginAttempt,
  endAttempt,
  type AttemptKey,
} from "@/server/services/run-state/step-records";
import { runtimeNow, stepRuntime } from "./runtime";
import { failStep, message, resolve } from "./step-bodies";

/** Server-side bodies of the `loop` step (the iterations run in the orchestrator). */

/** A loop's items resolved and checked (pure; the proposal dry run uses it too). */
export function resolveLoopStart(
  config: unknown,
  context: TemplateContext,
): { error: string } | LoopStart {
  let c: StepConfig<"loop">;
  // The initial state resolves on its own: a lone template reaching nothing leaves no key, which
  // the config's own rule (state needs stateFrom) would refuse; it starts as null instead.
  const raw = isPlainObject(config) ? config : {};
  const declaresState = raw.stateFrom !== undefined && raw.workflow === undefined;
  let initial: unknown = null;
  try {
    c = resolve(
      "loop",
      declaresState ? { ...raw, state: null } : config,
      context,
    ) as StepConfig<"loop">;
    if (declaresState) initial = resolve("transform", { value: raw.state }, context);
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
  const hasState = declaresState && c.stateFrom !== undefined;
  return {
    items: c.items as unknown[],
    // Each iteration reads the state the one before it set: one at a time, whatever was asked.
    concurrency: hasState ? 1 : c.concurrency,
    workflow: c.workflow ?? null,
    version: c.version ?? null,
    input: c.input ?? null,
    batchSize: c.batchSize ?? null,
    ...(hasState
      ? { state: { initial: (initial as { value?: unknown }).value ?? null, from: c.stateFrom! } }
      : {}),
  };
}

/** A loop's resolved config, as `beginLoopBody` returns it. */
export interface LoopStart {
  items: unknown[];
  concurrency: number;
  workflow: string | null;
  version: string | null;
  input: unknown;
  /** Items per iteration (`loop.batch`); null = one item per iteration (`loop.item`). */
  batchSize: number | null;
  /** The accumulator: its initial value and the body step whose output data replaces it. */
  state?: { initial: unknown; from: string };
}

export async function beginLoopBody(a: {
  key: AttemptKey;
  config: unknown;
  context: TemplateContext;
}) {
  const { db } = await stepRuntime();
  const start = resolveLoopStart(a.config, a.context);
  if ("error" in start) return failStep(a.key, start.error);
  await beginAttempt(db, a.key, {
    // Counts, never the items or the state: a 10,000-item list is not copied into the record.
    input: {
      items: start.items.length,
      concurrency: start.concurrency,
      ...(start.batchSize ? { batchSize: start.batchSize } : {}),
      ...(start.state ? { stateFrom: start.state.from } : {}),
    },
    now: runtimeNow(),
  });
  return start;
}

export async function endLoopBody(a: {
  key: AttemptKey;
  outcome: { kind: string; output?: unknown; error?: unknown };
}) {
  const { db } = await stepRuntime();
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
    runtimeNow(),
  );
  return { ok: true };
}
