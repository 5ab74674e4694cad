/**
 * Test runs from the editor (docs/runs.md "Testing while building"): the pure part — which steps a
 * test of one step runs (the step and its ancestors), the draft cut down to them, and what happens
 * to each (executed, reused from the last real run, or its side effect confirmed or replaced).
 */
import { buildGraph, computeAncestry, type GraphStepLike } from "./graph";
import { isPlainObject } from "./json";
import { SIDE_EFFECT_STEP_TYPES, type StepType } from "./catalog";

/** `step`: reuse the last run's outputs of the ancestors where there are some; `up_to`: run them all. */
export const TEST_MODES = ["step", "up_to"] as const;
export type TestMode = (typeof TEST_MODES)[number];

/** The builder's answer for a side-effecting step: run it for real, or take its last recorded output. */
export const SIDE_EFFECT_CHOICES = ["execute", "use_last"] as const;
export type SideEffectChoice = (typeof SIDE_EFFECT_CHOICES)[number];

/** What a test does with one step. `ask`: side-effecting, no recorded output, not confirmed. */
export type TestStepAction = "execute" | "use_last" | "ask";

export interface TestCut {
  /** The draft with only `stepId` and its ancestors (edges between them; no `output`). */
  definition: Record<string, unknown>;
  /** The kept steps in array order, with their types. */
  steps: { id: string; type: string }[];
}

/**
 * The draft cut to `stepId` and every step that must finish before it starts (edges and `when`
 * references). A draft without `edges` keeps running in array order, so it stays without them.
 * Returns a reason instead when the draft has no such top-level step.
 *
 *   a ──> b ──> d        cut to "d": a, b, d (c and e dropped, and the edges to them)
 *   a ──> c ──> e
 */
export function cutDefinitionToStep(
  definition: Record<string, unknown>,
  stepId: string,
): TestCut | { error: string } {
  const raw = Array.isArray(definition.steps) ? definition.steps : [];
  const steps = raw.filter(
    (s): s is GraphStepLike & Record<string, unknown> =>
      isPlainObject(s) && typeof s.id === "string" && typeof s.type === "string",
  );
  if (!steps.some((s) => s.id === stepId))
    return { error: `Step "${stepId}" is not a top-level step of the draft` };
  const rawEdges = Array.isArray(definition.edges) ? definition.edges : undefined;
  const edges = rawEdges?.filter(
    (e): e is { from: string; to: string } & Record<string, unknown> =>
      isPlainObject(e) && typeof e.from === "string" && typeof e.to === "string",
  );
  const graph = buildGraph({ steps, edges });
  const ancestry = computeAncestry(graph);
  const keep = new Set(graph.ids.filter((id) => id === stepId || ancestry.isUpstream(id, stepId)));
  const kept = steps.filter((s) => keep.has(s.id));
  const { output: _output, ...rest } = definition;
  return {
    definition: {
      ...rest,
      steps: kept,
      ...(edges ? { edges: edges.filter((e) => keep.has(e.from) && keep.has(e.to)) } : {}),
    },
    steps: kept.map((s) => ({ id: s.id, type: s.type })),
  };
}

export function isSideEffectType(type: string): boolean {
  return (SIDE_EFFECT_STEP_TYPES as readonly string[]).includes(type as StepType);
}

export interface PlannedTestStep {
  stepId: string;
  type: string;
  sideEffect: boolean;
  /** The last real run recorded a completed output for this step (same type). */
  hasLastOutput: boolean;
  action: TestStepAction;
}

/**
 * Per kept step: a side-effecting one executes only when confirmed (`execute`), takes its last
 * output by choice or by default when there is one, and is `ask` otherwise. In `step` mode every
 * ancestor with a last output reuses it; the tested step itself always runs (unless it is
 * side-effecting and the builder chose its last output).
 */
export function planTestSteps(args: {
  steps: readonly { id: string; type: string }[];
  stepId: string;
  mode: TestMode;
  hasLastOutput: (stepId: string, type: string) => boolean;
  choices: Readonly<Record<string, SideEffectChoice>>;
}): PlannedTestStep[] {
  return args.steps.map(({ id, type }) => {
    const sideEffect = isSideEffectType(type);
    const hasLastOutput = args.hasLastOutput(id, type);
    const choice = args.choices[id];
    let action: TestStepAction;
    if (sideEffect) action = choice ?? (hasLastOutput ? "use_last" : "ask");
    else if (args.mode === "step" && id !== args.stepId && hasLastOutput) action = "use_last";
    else action = "execute";
    if (action === "use_last" && !hasLastOutput) action = "ask";
    return { stepId: id, type, sideEffect, hasLastOutput, action };
  });
}
