/** What `runtime.policy.maxOutputBytes` (`--max-output-bytes`) left out of a run envelope. */
export interface OutputTruncation {
  maxOutputBytes: number;
  /** The outputs' size before anything was left out, in bytes of JSON (UTF-8). */
  outputBytes: number;
  /** What was replaced by null: `output`, `steps.<path>.output`. */
  omitted: string[];
}

/** A value's size as JSON text in UTF-8; an absent or null output costs nothing. */
export function jsonBytes(value: unknown): number {
  if (value === undefined || value === null) return 0;
  return Buffer.byteLength(JSON.stringify(value), "utf8");
}

/**
 * Bounds the outputs an envelope prints — the run's `output` and every step's `output` — to
 * `maxOutputBytes` of JSON together. The run's output comes first (it is the answer), then the
 * steps' in their order; whatever does not fit in what is left becomes null and is named in
 * `truncated`. Status, steps and exit code are unchanged: the full outputs stay readable with
 * `GET /api/v1/runs/{id}` (and `/steps`).
 */
export function boundOutputs<
  E extends { output: unknown; steps: readonly { path: string; output: unknown }[] },
>(envelope: E, maxOutputBytes: number | undefined): E & { truncated?: OutputTruncation } {
  if (maxOutputBytes === undefined) return envelope;
  const runBytes = jsonBytes(envelope.output);
  const stepBytes = envelope.steps.map((s) => jsonBytes(s.output));
  const outputBytes = stepBytes.reduce((a, b) => a + b, runBytes);
  if (outputBytes <= maxOutputBytes) return envelope;
  const omitted: string[] = [];
  let left = maxOutputBytes;
  const keep = (bytes: number, name: string) => {
    if (bytes <= left) {
      left -= bytes;
      return true;
    }
    omitted.push(name);
    return false;
  };
  const output = keep(runBytes, "output") ? envelope.output : null;
  const steps = envelope.steps.map((s, i) =>
    keep(stepBytes[i]!, `steps.${s.path}.output`) ? s : { ...s, output: null },
  );
  return { ...envelope, output, steps, truncated: { maxOutputBytes, outputBytes, omitted } };
}
