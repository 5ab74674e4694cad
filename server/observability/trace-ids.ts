import "server-only";
import { createHash } from "node:crypto";
import { isTracingEnabled } from "./config";

/**
 * A run is one trace, and every process must agree on its ids without asking anyone: a run may
 * start in one process, wait days on a gate and end in another. So the ids are derived from the
 * run's own identity (hashes), never drawn at random.
 */
function hex(input: string, bytes: number): string {
  const out = createHash("sha256")
    .update(input)
    .digest("hex")
    .slice(0, bytes * 2);
  // All-zero ids are invalid in W3C trace context; a hash that starts with 8 or 16 zero bytes
  // is not going to happen, but the id must stay valid if it does.
  return /^0+$/.test(out) ? `${out.slice(0, -1)}1` : out;
}

export function runTraceId(runId: string): string {
  return hex(`sluice:trace:${runId}`, 16);
}

/** The run's root span. */
export function runSpanId(runId: string): string {
  return hex(`sluice:run:${runId}`, 8);
}

/** One attempt of one step instance (path: `each[2].fetch` inside loops). */
export function stepSpanId(runId: string, path: string, attempt: number): string {
  return hex(`sluice:step:${runId}:${path}:${attempt}`, 8);
}

/** W3C `traceparent` of a step attempt: what an outgoing request of that attempt carries. */
export function stepTraceparent(runId: string, path: string, attempt: number): string {
  return `00-${runTraceId(runId)}-${stepSpanId(runId, path, attempt)}-01`;
}

/**
 * Adds the attempt's `traceparent` to an outgoing request's headers (lower-case keys) while
 * tracing is on, unless the step's config set one itself.
 */
export function addTraceparent(
  headers: Record<string, string>,
  attempt: { runId: string; stepPath: string; attempt: number },
): void {
  if (!isTracingEnabled() || headers.traceparent !== undefined) return;
  headers.traceparent = stepTraceparent(attempt.runId, attempt.stepPath, attempt.attempt);
}
