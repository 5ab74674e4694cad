import { z } from "zod";

/**
 * Per-run limit overrides (`sluice run --timeout-ms/--max-steps/--max-parallel`, `limits` on every
 * run-start path): a run may only TIGHTEN its definition's constraints, never loosen them, so an
 * author's limits hold whoever starts the run. The engine reads the tightened constraints.
 */
export const RunLimits = z
  .strictObject({
    timeoutMs: z
      .int()
      .min(1_000)
      .optional()
      .describe("Run deadline in ms; at most the definition's constraints.timeoutMs."),
    maxSteps: z
      .int()
      .min(1)
      .optional()
      .describe(
        "Executed step attempts; at most the definition's constraints.maxSteps (and the workspace's steps-per-run quota).",
      ),
    maxParallel: z
      .int()
      .min(1)
      .optional()
      .describe("Steps running at once; at most the definition's constraints.maxParallel."),
  })
  .describe("Limits for this run only; each may only tighten the workflow's own.");
export type RunLimits = z.infer<typeof RunLimits>;

export const RUN_LIMIT_KEYS = ["timeoutMs", "maxSteps", "maxParallel"] as const;
export type RunLimitKey = (typeof RUN_LIMIT_KEYS)[number];

/** The largest value each limit may take for this run (definition constraints, quotas applied). */
export type RunLimitCaps = Record<RunLimitKey, number>;

/** One issue per limit that would loosen its cap, naming the field and the allowed maximum. */
export function runLimitIssues(
  limits: RunLimits | null | undefined,
  caps: RunLimitCaps,
): { path: string[]; message: string }[] {
  return RUN_LIMIT_KEYS.flatMap((key) => {
    const value = limits?.[key];
    if (value === undefined || value <= caps[key]) return [];
    return [
      {
        path: ["limits", key],
        message: `limits.${key} may only tighten the workflow's limit: at most ${caps[key]}, got ${value}`,
      },
    ];
  });
}

/** The constraints a run executes under: each given limit replaces a larger constraint. */
export function tightenConstraints<C extends RunLimitCaps>(
  constraints: C,
  limits: RunLimits | null | undefined,
): C {
  if (!limits) return constraints;
  const out = { ...constraints };
  for (const key of RUN_LIMIT_KEYS) {
    const value = limits[key];
    if (value !== undefined) out[key] = Math.min(out[key], value) as C[RunLimitKey];
  }
  return out;
}

/** Stored form: only the limits that were given, or null when none (most runs). */
export function storedRunLimits(limits: RunLimits | null | undefined): RunLimits | null {
  if (!limits) return null;
  const given = Object.fromEntries(
    RUN_LIMIT_KEYS.filter((k) => limits[k] !== undefined).map((k) => [k, limits[k]]),
  ) as RunLimits;
  return Object.keys(given).length ? given : null;
}

/**
 * How deep sub-workflows may nest: a run's depth is the number of sub-workflow hops from its root
 * run (a subworkflow step, a workflow loop's iteration or an agent's workflow tool each add one),
 * so recursion (A → A, A → B → A) stops with an error instead of running until a quota ends it.
 */
export const MAX_SUBWORKFLOW_DEPTH = 10;

/** The refusal for a child that would nest too deep, naming the chain (root first). */
export function subworkflowDepthMessage(limit: number, chain: readonly string[]): string {
  const shown = chain.map((name) => (name.length > 40 ? `${name.slice(0, 39)}…` : name));
  return `sub-workflow depth ${limit} exceeded: ${shown.join(" → ")}`;
}
