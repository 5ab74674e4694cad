import "server-only";
import { and, desc, eq, isNull, notLike } from "drizzle-orm";
import type { Queryable } from "@/db/client";
import { runs, runSteps } from "@/db/schema";
import { isPlainObject } from "@/lib/workflow/json";
import {
  cutDefinitionToStep,
  planTestSteps,
  type PlannedTestStep,
  type SideEffectChoice,
  type TestMode,
} from "@/lib/workflow/test-run";
import { ValidationError } from "../../errors";
import { loadWorkflow } from "../workflows/load-workflow";

export interface TestRunPlan {
  /** The draft cut to the tested step and its ancestors. */
  definition: Record<string, unknown>;
  steps: PlannedTestStep[];
  /** The workflow's last real (non-test, top-level) run, whose input and outputs a test reuses. */
  lastRun: { id: string; input: Record<string, unknown>; createdAt: Date } | null;
  /** Reused outcomes by step id (the run's seed): steps whose action is `use_last`. */
  seed: Record<string, { status: "completed"; port?: string; output: unknown }>;
}

/**
 * What a test of one step does (docs/runs.md "Testing while building"): the workflow's draft (or
 * the one given) cut to the step and its ancestors, the last real run's input and recorded step
 * outputs, and per step whether it executes, reuses its last output, or waits for the builder's
 * confirmation (`ask`: side-effecting with no recorded output).
 */
export async function planTestRun(
  db: Queryable,
  workspaceId: string,
  args: {
    workflowId: string;
    stepId: string;
    mode: TestMode;
    definition?: Record<string, unknown>;
    sideEffects: Record<string, SideEffectChoice>;
  },
): Promise<TestRunPlan> {
  const wf = await loadWorkflow(db, workspaceId, args.workflowId);
  const draft = args.definition ?? wf.draft;
  if (!isPlainObject(draft))
    throw new ValidationError("The draft is not a workflow definition (a JSON object)", [
      { path: ["definition"], message: "Expected an object" },
    ]);
  const cut = cutDefinitionToStep(draft, args.stepId);
  if ("error" in cut)
    throw new ValidationError(cut.error, [{ path: ["stepId"], message: cut.error }]);
  const [last] = await db
    .select({ id: runs.id, input: runs.input, createdAt: runs.createdAt })
    .from(runs)
    .where(
      and(
        eq(runs.workspaceId, workspaceId),
        eq(runs.workflowId, wf.id),
        eq(runs.isTest, false),
        isNull(runs.parentRunId),
      ),
    )
    .orderBy(desc(runs.createdAt), desc(runs.id))
    .limit(1);
  const outputs = new Map<string, { type: string; port: string | null; output: unknown }>();
  if (last) {
    // Top-level rows only (loop body rows carry `[`), newest attempt first.
    const rows = await db
      .select({
        path: runSteps.path,
        type: runSteps.stepType,
        status: runSteps.status,
        port: runSteps.port,
        output: runSteps.output,
      })
      .from(runSteps)
      .where(and(eq(runSteps.runId, last.id), notLike(runSteps.path, "%[%")))
      .orderBy(desc(runSteps.attempt));
    const seen = new Set<string>();
    for (const r of rows) {
      if (seen.has(r.path)) continue;
      seen.add(r.path);
      if (r.status === "completed")
        outputs.set(r.path, { type: r.type, port: r.port, output: r.output });
    }
  }
  const unknown = Object.keys(args.sideEffects).filter((id) => !cut.steps.some((s) => s.id === id));
  if (unknown.length)
    throw new ValidationError(
      `sideEffects names ${unknown.map((id) => `"${id}"`).join(", ")}, not run by this test (the step and its ancestors: ${cut.steps.map((s) => s.id).join(", ")})`,
      unknown.map((id) => ({ path: ["sideEffects", id], message: "Not part of this test" })),
    );
  const steps = planTestSteps({
    steps: cut.steps,
    stepId: args.stepId,
    mode: args.mode,
    hasLastOutput: (id, type) => outputs.get(id)?.type === type,
    choices: args.sideEffects,
  });
  const seed: TestRunPlan["seed"] = {};
  for (const s of steps) {
    const o = outputs.get(s.stepId);
    if (s.action === "use_last" && o)
      seed[s.stepId] = {
        status: "completed",
        ...(o.port ? { port: o.port } : {}),
        output: o.output,
      };
  }
  return {
    definition: cut.definition,
    steps,
    lastRun: last ? { id: last.id, input: last.input, createdAt: last.createdAt } : null,
    seed,
  };
}
