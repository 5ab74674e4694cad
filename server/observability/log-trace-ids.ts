import "server-only";
import { addLogEnricher } from "@/lib/log";
import { isTracingEnabled } from "./config";
import { runTraceId, stepSpanId } from "./trace-ids";

/**
 * While tracing is on, a log line about a run carries its trace id (and a step attempt's line
 * its span id: `step` is the attempt's path, as action-attempt.ts logs it), so logs and traces
 * join in the operator's tools. Installed once per process.
 */
function traceFields(rec: Readonly<Record<string, unknown>>) {
  if (!isTracingEnabled() || typeof rec.runId !== "string") return undefined;
  const fields: Record<string, string> = { traceId: runTraceId(rec.runId) };
  if (typeof rec.step === "string" && typeof rec.attempt === "number")
    fields.spanId = stepSpanId(rec.runId, rec.step, rec.attempt);
  return fields;
}

const g = globalThis as typeof globalThis & { __sluiceLogTraceIds?: boolean };

export function installLogTraceIds(): void {
  if (g.__sluiceLogTraceIds) return;
  g.__sluiceLogTraceIds = true;
  addLogEnricher(traceFields);
}
