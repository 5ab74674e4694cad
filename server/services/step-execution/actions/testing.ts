/**
 * Builds an ActionContext for handler tests, the way the engine would: config parsed through the
 * step type's schema (defaults applied), a real scratch directory, a fresh AbortController.
 */
import fs from "node:fs/promises";
import os from "node:os";
import path from "node:path";
import type { z } from "zod";
import { createLogger } from "@/lib/log";
import type { ActionContext } from "./types";

export function makeActionContext<Schema extends z.ZodType>(
  schema: Schema,
  rawConfig: z.input<Schema>,
  overrides: Partial<ActionContext<z.output<Schema>>> = {},
): ActionContext<z.output<Schema>> & { abort: AbortController; cleanup(): Promise<void> } {
  const abort = new AbortController();
  let scratch: string | undefined;
  return {
    workspaceId: "ws_test",
    workflowId: "wf_test",
    runId: "run_test",
    rootRunId: "run_test",
    stepId: "step",
    stepPath: "step",
    attempt: 1,
    idempotencyKey: "idem_run_test_step_1",
    config: schema.parse(rawConfig),
    signal: abort.signal,
    deadline: Date.now() + 120_000,
    policy: { scriptStepsEnabled: false, allowedPrivateHosts: [], forbiddenStepTypes: [] },
    log: createLogger({ test: "action" }),
    scratchDir: async () =>
      (scratch ??= await fs.mkdtemp(path.join(os.tmpdir(), "sluice-scratch-"))),
    secretValues: [],
    ...overrides,
    abort,
    cleanup: async () => {
      if (scratch) await fs.rm(scratch, { recursive: true, force: true });
    },
  };
}

/** Runs a handler promise that must fail and returns the failure. */
export async function failureOf(p: Promise<unknown>): Promise<import("./types").StepFailure> {
  const { StepFailure } = await import("./types");
  try {
    await p;
  } catch (e) {
    if (e instanceof StepFailure) return e;
    throw e;
  }
  throw new Error("expected the step to fail");
}
