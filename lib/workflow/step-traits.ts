/**
 * The engine's lists of step types, each derived from the `traits` of the catalog's records
 * (catalog.ts): a new type states its traits once and every list below follows.
 */
import { STEP_CATALOG, STEP_TYPES, type StepTraits, type StepTypeWith } from "./catalog";
import type { StepType } from "./steps";

export type PureStepType = StepTypeWith<{ execution: "pure" }>;
export type OrchestratedStepType = StepTypeWith<{ execution: "orchestrated" }>;
/** Types run by `runActionAttempt`, one durable step per attempt (everything not orchestrated). */
export type ActionStepType = Exclude<StepType, OrchestratedStepType>;
export type ProcessStepType = StepTypeWith<{ execution: "process" }>;
export type RecordableStepType = StepTypeWith<{ recordable: true }>;

function typesWhere<T extends StepType>(test: (traits: StepTraits) => boolean): readonly T[] {
  return STEP_TYPES.filter((t) => test(STEP_CATALOG[t].traits)) as T[];
}

/** Output depends only on the run context: evaluated in waves and by the proposal dry run. */
export const PURE_STEP_TYPES: ReadonlySet<string> = new Set<string>(
  typesWhere<PureStepType>((t) => t.execution === "pure"),
);

/**
 * Act on the world (catalog `sideEffect`): a proposal's replay never executes them, it serves the
 * original run's recorded output when step id and resolved input match.
 */
export const SIDE_EFFECT_STEP_TYPES: ReadonlySet<string> = new Set<string>(
  STEP_TYPES.filter((t) => STEP_CATALOG[t].sideEffect),
);

/** No I/O of their own: no secrets, no policy, no deadline machinery, one transaction. */
export const INSTANT_STEP_TYPES: ReadonlySet<string> = new Set<string>(
  typesWhere((t) => t.execution === "pure" || t.execution === "instant"),
);

/** Driven by the run driver with durable waits, sleeps and invokes (no action handler). */
export const ORCHESTRATED_STEP_TYPES: readonly OrchestratedStepType[] = typesWhere(
  (t) => t.execution === "orchestrated",
);

/** Their attempt owns an OS process that may outlive a SIGTERM (until SIGKILL). */
export const PROCESS_STEP_TYPES: readonly ProcessStepType[] = typesWhere(
  (t) => t.execution === "process",
);

/** The step types an agent may record (docs/mcp.md); a tuple, so `z.enum` can take it. */
export const RECORDABLE_STEP_TYPES = typesWhere<RecordableStepType>(
  (t) => t.recordable === true,
) as unknown as readonly [RecordableStepType, ...RecordableStepType[]];

/**
 * Step types an inline run cannot execute: a proposal targets the workflow it runs in. Approval
 * and task steps run inline (their rows carry a null workflow).
 */
export const SAVED_WORKFLOW_STEP_TYPES: readonly StepType[] = typesWhere(
  (t) => t.savedWorkflowOnly === true,
);

/** The attempt's deadline (ms) when the step sets no timeoutMs; undefined: none. */
export function defaultTimeoutMs(type: StepType): number | undefined {
  return STEP_CATALOG[type].traits.defaultTimeoutMs;
}

/** For the `default` of an exhaustive switch: a new step type fails the typecheck there. */
export function unhandledStepType(type: never): never {
  throw new Error(`Unhandled step type "${String(type)}"`);
}
