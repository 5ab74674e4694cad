/**
 * One attempt of a pure step (`transform`, `condition`, `return`): the config's templates
 * resolved and parsed as `runActionAttempt` does it, then the real handler — no I/O, no
 * recording. Waves (waves.ts) and the proposal dry run evaluate pure steps with it.
 */
import {
  collectReferences,
  type StepOutcome,
  type StepType,
  type TemplateContext,
} from "@/lib/workflow";
import type { Logger } from "@/lib/log";
import { PURE_STEP_TYPES } from "@/lib/workflow/step-traits";
import type { DriverEnv, DriverNode } from "./types";

export { PURE_STEP_TYPES };

const waveable = new WeakMap<object, boolean>();

/**
 * Whether a step may run inside a wave: a pure type whose config and `when` name no secret
 * (those resolve secrets and redact, through the per-step path). Retry and timeout settings do
 * not matter: a pure step fails only with user or internal failures, which are never retried,
 * and it does no I/O a timeout could stop.
 */
export function isWaveStep(node: DriverNode): boolean {
  if (!PURE_STEP_TYPES.has(node.type)) return false;
  let known = waveable.get(node);
  if (known === undefined) {
    known =
      collectReferences(node.config ?? {}).secrets.length === 0 &&
      (node.when === undefined || collectReferences(node.when).secrets.length === 0);
    waveable.set(node, known);
  }
  return known;
}

export interface PureStepResult {
  outcome: StepOutcome;
  /** What the attempt row stores as its input: the resolved config, null if it did not resolve. */
  input: unknown;
}

/**
 * Evaluates a pure step. Failures come back as outcomes with the per-step path's error shape
 * (`{ message, class, details? }`: `user` for templates and conditions, `internal` for a crash).
 */
export async function evaluatePureStep(
  env: Pick<DriverEnv, "plan" | "deadline" | "stepEffects">,
  path: string,
  node: DriverNode,
  ctx: TemplateContext,
  log: Logger,
): Promise<PureStepResult> {
  const type = node.type as StepType;
  const { handlerFor, resolveActionConfig, StepFailure } = env.stepEffects.actions;
  // Templates resolve as in runActionAttempt: a pure step in a wave names no secret.
  const resolved = resolveActionConfig(type, node.config ?? {}, {
    ...ctx,
    secrets: () => undefined,
  });
  if (!resolved.ok)
    return {
      outcome: { kind: "failed", error: { message: resolved.message, class: "user" } },
      input: null,
    };
  const config = resolved.config;
  const entry = handlerFor(type);
  if (entry.kind !== "action") throw new Error(`${type} is not an action step`);
  try {
    const result = await entry.handler({
      workspaceId: env.plan.workspaceId,
      workflowId: env.plan.workflowId,
      runId: env.plan.runId,
      rootRunId: env.plan.rootRunId,
      stepId: node.id,
      stepPath: path,
      attempt: 1,
      idempotencyKey: `${env.plan.rootRunId}:${path}:1`,
      config,
      signal: new AbortController().signal,
      deadline: env.deadline,
      policy: { scriptStepsEnabled: false, allowedPrivateHosts: [], forbiddenStepTypes: [] },
      log,
      scratchDir: () => Promise.reject(new Error("pure steps have no scratch directory")),
      secretValues: [],
      templateContext: ctx,
    });
    const output = { type, data: result.data ?? null, meta: result.meta ?? {} };
    return {
      outcome: { kind: "completed", ...(result.port ? { port: result.port } : {}), output },
      input: config,
    };
  } catch (e) {
    const err = e instanceof Error ? e : new Error(String(e));
    const sf =
      err instanceof StepFailure
        ? err
        : new StepFailure(err.message || "Internal error", "internal");
    if (!(err instanceof StepFailure)) log.error("step handler crashed", { err });
    return {
      outcome: {
        kind: "failed",
        error: {
          message: sf.message,
          class: sf.failureClass,
          ...(Object.keys(sf.details).length ? { details: sf.details } : {}),
        },
      },
      input: config,
    };
  }
}
