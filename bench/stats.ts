/** Small statistics helpers shared by the benchmark scripts. */
export function percentile(values: number[], p: number): number {
  if (values.length === 0) return NaN;
  const sorted = [...values].sort((a, b) => a - b);
  const idx = Math.min(sorted.length - 1, Math.max(0, Math.ceil((p / 100) * sorted.length) - 1));
  return sorted[idx]!;
}

export const median = (values: number[]) => percentile(values, 50);

export function round(n: number, digits = 2): number {
  const f = 10 ** digits;
  return Math.round(n * f) / f;
}

/** Prints one result line as JSON (collected by bench/run.sh). */
export function report(name: string, result: Record<string, unknown>): void {
  process.stdout.write(`BENCH ${JSON.stringify({ name, ...result })}\n`);
}
