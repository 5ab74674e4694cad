import "server-only";
import {
  collectReferences,
  parseResolvedConfig,
  resolveStepConfig,
  TemplateResolutionError,
  type TemplateContext,
} from "@/lib/workflow";
import {
  beginAttempt,
  endAttempt,
  type AttemptKey,
} from "@/server/services/run-state/step-records";
import { runtimeNow, stepRuntime } from "./runtime";

/**
 * What the server-side bodies of the orchestrated step types share (approval-, delay-, wait-,
 * loop-, subworkflow- and task-bodies.ts; each body runs inside one durable step). Bodies resolve
 * templates, record the step's rows through server/services/run-state and return small JSON
 * values the orchestrator branches on. A problem in the config is returned as `{ error }` (a user
 * failure), not thrown.
 */

type Failure = { error: { message: string; class: "user" | "internal" } };
const userError = (message: string): Failure => ({ error: { message, class: "user" } });

export function resolve<T extends string>(
  type: T,
  config: unknown,
  context: TemplateContext,
): unknown {
  const refs = collectReferences(config);
  if (refs.secrets.length)
    throw new TemplateResolutionError(
      "Secrets cannot be used in this step type",
      "secrets",
      "SECRET_UNAVAILABLE",
    );
  const parsed = parseResolvedConfig(type, resolveStepConfig(type, config, context));
  if (!parsed.ok) throw new Error(parsed.problem); // one sentence, not zod's issue array
  return parsed.config;
}

export async function failStep(key: AttemptKey, message: string): Promise<Failure> {
  const { db } = await stepRuntime();
  await beginAttempt(db, key, { now: runtimeNow() });
  await endAttempt(
    db,
    key,
    { status: "failed", error: { message }, failureClass: "user" },
    runtimeNow(),
  );
  return userError(message);
}

export function message(e: unknown): string {
  return e instanceof Error ? e.message : String(e);
}
