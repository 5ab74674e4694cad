/** A step's outcome in a test run, as the inspector and the node badge show it. */
export interface TestStepResult {
  status: string;
  output: unknown;
  error: unknown;
}

/**
 * Each top-level step's last attempt in a test run (loop iterations carry `[` in their path and
 * are left to the run page).
 */
export function testStepResults(
  attempts: readonly {
    stepId: string;
    path: string;
    attempt: number;
    status: string;
    output?: unknown;
    error?: unknown;
  }[],
): Map<string, TestStepResult> {
  const out = new Map<string, TestStepResult & { attempt: number }>();
  for (const a of attempts) {
    if (a.path !== a.stepId) continue;
    const seen = out.get(a.stepId);
    if (seen && seen.attempt > a.attempt) continue;
    out.set(a.stepId, {
      status: a.status,
      output: a.output ?? null,
      error: a.error ?? null,
      attempt: a.attempt,
    });
  }
  return new Map([...out].map(([id, { attempt: _attempt, ...r }]) => [id, r]));
}

/** A one-line preview of a step output's data (`output.data`), at most `max` characters. */
export function outputPreview(output: unknown, max = 40): string {
  const data =
    output && typeof output === "object" && "data" in output
      ? (output as { data: unknown }).data
      : output;
  const text = typeof data === "string" ? data : JSON.stringify(data ?? null);
  return text.length > max ? `${text.slice(0, max - 1)}…` : text;
}
