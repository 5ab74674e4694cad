/** A step attempt as the run page reads it (run.steps). */
export interface StepAttemptView {
  id: string;
  path: string;
  stepId: string;
  stepType: string;
  attempt: number;
  status: string;
  port: string | null;
  skipReason: string | null;
  failureClass: string | null;
  input: unknown;
  output: unknown;
  error: unknown;
  createdAt: Date | string;
  startedAt: Date | string | null;
  finishedAt: Date | string | null;
  durationMs: number | null;
}

/** Attempts grouped by step path, in the order they were recorded. */
export function attemptsByPath<T extends { path: string }>(
  attempts: readonly T[],
): Map<string, T[]> {
  const byPath = new Map<string, T[]>();
  for (const a of attempts) byPath.set(a.path, [...(byPath.get(a.path) ?? []), a]);
  return byPath;
}
