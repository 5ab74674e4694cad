import "server-only";
import { randomBytes } from "node:crypto";
import type { Attributes, Tracer } from "@opentelemetry/api";
import type { BasicTracerProvider, IdGenerator } from "@opentelemetry/sdk-trace-base";
import { observabilityConfig } from "./config";
import { runSpanId, runTraceId, stepSpanId } from "./trace-ids";

/**
 * OpenTelemetry export (docs/operations.md "Tracing"). The SDK is imported on first use, and only
 * when OTEL_EXPORTER_OTLP_ENDPOINT is set: without it nothing here is loaded. The provider is
 * Sluice's own (never registered as the global one: the inngest SDK has its own tracing).
 */

/** One step attempt as its span: times from its row. */
export interface StepSpan {
  stepId: string;
  path: string;
  stepType: string;
  attempt: number;
  status: string;
  failureClass: string | null;
  errorMessage: string | null;
  startedAt: Date;
  finishedAt: Date;
}

/** A run that ended, as its root span. */
export interface RunSpan {
  runId: string;
  workspaceId: string;
  workflowId: string | null;
  version: string;
  hash: string;
  triggerType: string;
  status: string;
  parentRunId: string | null;
  startedAt: Date;
  finishedAt: Date;
}

/** Ids are chosen by the caller (trace-ids.ts): the next startSpan takes what was set here. */
class DerivedIds implements IdGenerator {
  next: { traceId?: string; spanId?: string } = {};
  generateTraceId(): string {
    const id = this.next.traceId;
    this.next.traceId = undefined;
    return id ?? randomBytes(16).toString("hex");
  }
  generateSpanId(): string {
    const id = this.next.spanId;
    this.next.spanId = undefined;
    return id ?? randomBytes(8).toString("hex");
  }
}

interface TracingState {
  endpoint: string;
  provider: BasicTracerProvider;
  tracer: Tracer;
  ids: DerivedIds;
  api: typeof import("@opentelemetry/api");
}

const g = globalThis as typeof globalThis & { __sluiceTracing?: Promise<TracingState> };

async function start(
  endpoint: string,
  headers: Record<string, string>,
  serviceName: string,
): Promise<TracingState> {
  const [api, sdk, { OTLPTraceExporter }, { resourceFromAttributes }, semconv] = await Promise.all([
    import("@opentelemetry/api"),
    import("@opentelemetry/sdk-trace-base"),
    import("@opentelemetry/exporter-trace-otlp-http"),
    import("@opentelemetry/resources"),
    import("@opentelemetry/semantic-conventions"),
  ]);
  const ids = new DerivedIds();
  const exporter = new OTLPTraceExporter({
    url: `${endpoint.replace(/\/+$/, "")}/v1/traces`,
    headers,
  });
  const provider = new sdk.BasicTracerProvider({
    resource: resourceFromAttributes({ [semconv.ATTR_SERVICE_NAME]: serviceName }),
    idGenerator: ids,
    // A short delay: spans of a process that is stopped are lost with the unsent batch.
    spanProcessors: [new sdk.BatchSpanProcessor(exporter, { scheduledDelayMillis: 1000 })],
  });
  return { endpoint, provider, tracer: provider.getTracer("sluice"), ids, api };
}

/** The tracing SDK, started once per process (and again if the endpoint changed: tests). */
async function tracing(): Promise<TracingState | undefined> {
  const config = observabilityConfig().tracing;
  if (!config) return undefined;
  const current = g.__sluiceTracing ? await g.__sluiceTracing : undefined;
  if (current?.endpoint === config.endpoint) return current;
  if (current) await current.provider.shutdown().catch(() => undefined);
  const started = start(config.endpoint, config.headers, config.serviceName);
  g.__sluiceTracing = started;
  // A failed start (a broken install) is retried by the next run rather than kept.
  started.catch(() => {
    if (g.__sluiceTracing === started) g.__sluiceTracing = undefined;
  });
  return started;
}

/**
 * Emits a run that ended: its root span and one span per step attempt, all with explicit start
 * and end times and derived ids, so whichever process ends the run writes the same trace.
 */
export async function exportRunTrace(run: RunSpan, steps: readonly StepSpan[]): Promise<void> {
  const t = await tracing();
  if (!t) return;
  const { api, tracer, ids } = t;
  const traceId = runTraceId(run.runId);
  const rootId = runSpanId(run.runId);
  const runAttrs: Attributes = {
    "sluice.run.id": run.runId,
    "sluice.workspace.id": run.workspaceId,
    "sluice.workflow.id": run.workflowId ?? "inline",
    "sluice.workflow.version": run.version,
    "sluice.workflow.version_hash": run.hash,
    "sluice.trigger.kind": run.triggerType,
    "sluice.run.status": run.status,
    ...(run.parentRunId ? { "sluice.run.parent_id": run.parentRunId } : {}),
  };
  ids.next = { traceId, spanId: rootId };
  const root = tracer.startSpan(
    `run ${run.workflowId ?? "inline"}`,
    { root: true, startTime: run.startedAt, attributes: runAttrs },
    api.ROOT_CONTEXT,
  );
  if (run.status !== "completed")
    root.setStatus({ code: api.SpanStatusCode.ERROR, message: run.status });
  root.end(run.finishedAt);
  const parent = api.trace.setSpanContext(api.ROOT_CONTEXT, {
    traceId,
    spanId: rootId,
    traceFlags: api.TraceFlags.SAMPLED,
    isRemote: true,
  });
  for (const s of steps) {
    ids.next = { spanId: stepSpanId(run.runId, s.path, s.attempt) };
    const span = tracer.startSpan(
      `step ${s.stepId}`,
      {
        startTime: s.startedAt,
        attributes: {
          "sluice.run.id": run.runId,
          "sluice.workflow.id": run.workflowId ?? "inline",
          "sluice.workflow.version_hash": run.hash,
          "sluice.step.id": s.stepId,
          "sluice.step.path": s.path,
          "sluice.step.type": s.stepType,
          "sluice.step.attempt": s.attempt,
          "sluice.step.outcome": s.status,
          ...(s.failureClass ? { "sluice.step.failure_class": s.failureClass } : {}),
        },
      },
      parent,
    );
    if (s.status === "failed")
      span.setStatus({ code: api.SpanStatusCode.ERROR, message: s.errorMessage ?? "failed" });
    span.end(s.finishedAt);
  }
}

/** Sends what is buffered (tests, shutdown). */
export async function flushTraces(): Promise<void> {
  const t = g.__sluiceTracing ? await g.__sluiceTracing : undefined;
  await t?.provider.forceFlush();
}

/** Stops the SDK (tests switch endpoints; shutdown flushes). */
export async function stopTracing(): Promise<void> {
  const t = g.__sluiceTracing;
  g.__sluiceTracing = undefined;
  if (t) await (await t).provider.shutdown();
}
