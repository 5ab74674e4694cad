/**
 * Traces through a local OTLP/HTTP receiver written here (JSON encoding, decoded as it arrives):
 * runs through the real executor become one trace each, with derived ids, and an `http` step
 * sends the attempt's `traceparent` to a local stub.
 */
import { afterAll, beforeAll, describe, expect, it, vi } from "vitest";
import { createLogger } from "@/lib/log";
import { updateWorkspacePolicies } from "@/server/services/settings/update-workspace-policies";
import { sendJson, startHttpServer, type LocalServer } from "@/server/testing/local-http";
import { startRunHarness, type RunHarness } from "@/server/testing/run-harness";
import { setObservabilityConfig } from "./config";
import { runSpanId, runTraceId, stepSpanId } from "./trace-ids";
import { flushTraces, stopTracing } from "./tracing";

interface OtlpValue {
  stringValue?: string;
  intValue?: string | number;
  boolValue?: boolean;
}
interface OtlpSpan {
  traceId: string;
  spanId: string;
  parentSpanId?: string;
  name: string;
  startTimeUnixNano: string;
  endTimeUnixNano: string;
  attributes: { key: string; value: OtlpValue }[];
  status?: { code?: number; message?: string };
}
interface ReceivedSpan extends Omit<OtlpSpan, "attributes"> {
  attrs: Record<string, string | number | boolean | undefined>;
  service: string | undefined;
}

let e: RunHarness;
let collector: LocalServer;
let stub: LocalServer;
const received: ReceivedSpan[] = [];

const plain = (v: OtlpValue) =>
  v.stringValue ?? (v.intValue !== undefined ? Number(v.intValue) : v.boolValue);

beforeAll(async () => {
  collector = await startHttpServer((req, res, body) => {
    if (req.url !== "/v1/traces" || req.headers["x-collector-key"] !== "k1")
      return sendJson(res, 404, {});
    // OTLP/HTTP JSON: resourceSpans → scopeSpans → spans, ids in hex.
    const doc = JSON.parse(body) as {
      resourceSpans: {
        resource: { attributes: { key: string; value: OtlpValue }[] };
        scopeSpans: { spans: OtlpSpan[] }[];
      }[];
    };
    for (const rs of doc.resourceSpans) {
      const service = rs.resource.attributes.find((a) => a.key === "service.name");
      for (const ss of rs.scopeSpans)
        for (const s of ss.spans)
          received.push({
            ...s,
            attrs: Object.fromEntries(s.attributes.map((a) => [a.key, plain(a.value)])),
            service: service ? String(plain(service.value)) : undefined,
          });
    }
    return sendJson(res, 200, {});
  });
  stub = await startHttpServer((_req, res) => sendJson(res, 200, { ok: true }));
  e = await startRunHarness("tracing");
  await updateWorkspacePolicies({
    ctx: e.ws.ctx("admin"),
    input: {
      scriptStepsEnabled: false,
      allowedPrivateHosts: ["127.0.0.1"],
      forbiddenStepTypes: [],
    },
  });
  setObservabilityConfig({
    metrics: {},
    tracing: {
      endpoint: collector.origin,
      headers: { "x-collector-key": "k1" },
      serviceName: "sluice-test",
    },
  });
});
afterAll(async () => {
  await stopTracing();
  setObservabilityConfig(undefined);
  await e?.close();
  await stub?.close();
  await collector?.close();
});

/** The spans of one trace once `n` of them arrived (export happens after the run's commit). */
function traceOf(runId: string, n: number): Promise<ReceivedSpan[]> {
  const traceId = runTraceId(runId);
  return e.h.until(async () => {
    await flushTraces();
    const spans = received.filter((s) => s.traceId === traceId);
    return spans.length >= n ? spans : undefined;
  }, `${n} spans of run ${runId}`);
}

describe("run traces", () => {
  /*
   *   a (transform) ──▶ call (http → stub) ──▶ c (transform)
   */
  it("exports a run as one trace: a root span and a child span per step attempt", async () => {
    const wf = await e.workflow({
      schemaVersion: 1,
      name: "Traced",
      steps: [
        { id: "a", type: "transform", config: { value: 1 } },
        {
          id: "call",
          type: "http",
          config: { method: "POST", url: `${stub.origin}/hit`, body: {} },
        },
        { id: "c", type: "transform", config: { value: "{{ steps.call.output.data.status }}" } },
      ],
    });
    const runId = await e.start(wf);
    const run = await e.waitFor(runId, ["completed", "failed"]);
    expect(run.status, JSON.stringify(run.error)).toBe("completed");
    const spans = await traceOf(runId, 4);
    expect(spans).toHaveLength(4);
    const traceId = runTraceId(runId);
    const root = spans.find((s) => !s.parentSpanId)!;
    expect(root.spanId).toBe(runSpanId(runId));
    expect(root.service).toBe("sluice-test");
    expect(root.attrs).toMatchObject({
      "sluice.run.id": runId,
      "sluice.workflow.id": wf,
      "sluice.workflow.version_hash": run.hash,
      "sluice.workflow.version": run.version,
      "sluice.trigger.kind": "manual",
      "sluice.run.status": "completed",
    });
    expect(root.status?.code ?? 0).not.toBe(2);
    const steps = spans.filter((s) => s !== root);
    expect(steps.map((s) => s.attrs["sluice.step.id"]).sort()).toEqual(["a", "c", "call"]);
    for (const s of steps) {
      expect(s.traceId).toBe(traceId);
      expect(s.parentSpanId).toBe(root.spanId);
      expect(s.spanId).toBe(stepSpanId(runId, String(s.attrs["sluice.step.path"]), 1));
      expect(s.attrs["sluice.step.attempt"]).toBe(1);
      expect(s.attrs["sluice.step.outcome"]).toBe("completed");
      expect(s.attrs["sluice.workflow.version_hash"]).toBe(run.hash);
      expect(BigInt(s.startTimeUnixNano)).toBeGreaterThanOrEqual(BigInt(root.startTimeUnixNano));
      expect(BigInt(s.endTimeUnixNano)).toBeLessThanOrEqual(BigInt(root.endTimeUnixNano));
    }
    const call = steps.find((s) => s.attrs["sluice.step.id"] === "call")!;
    expect(call.attrs["sluice.step.type"]).toBe("http");
    expect(steps.find((s) => s.attrs["sluice.step.id"] === "a")!.attrs["sluice.step.type"]).toBe(
      "transform",
    );
    // The http step's request carried its own span as the parent of whatever the stub does.
    const hit = stub.requests.find((r) => r.url === "/hit")!;
    expect(hit.headers.traceparent).toBe(`00-${traceId}-${call.spanId}-01`);
    expect(hit.headers.traceparent).toMatch(/^00-[0-9a-f]{32}-[0-9a-f]{16}-01$/);
  });

  it("marks a failed step and its run as errors", async () => {
    const wf = await e.workflow({
      schemaVersion: 1,
      name: "Traced failure",
      steps: [
        {
          id: "boom",
          type: "code",
          config: { source: "export default function () { throw new Error('nope'); }" },
        },
      ],
    });
    const runId = await e.start(wf);
    expect((await e.waitFor(runId, ["completed", "failed"])).status).toBe("failed");
    const spans = await traceOf(runId, 2);
    const root = spans.find((s) => !s.parentSpanId)!;
    const boom = spans.find((s) => s.parentSpanId)!;
    expect(root.status?.code).toBe(2);
    expect(root.attrs["sluice.run.status"]).toBe("failed");
    expect(boom.status?.code).toBe(2);
    expect(boom.status?.message).toContain("nope");
    expect(boom.attrs).toMatchObject({
      "sluice.step.type": "code",
      "sluice.step.outcome": "failed",
      "sluice.step.failure_class": "user",
    });
  });

  it("puts the run's trace id (and a step attempt's span id) on its log lines", () => {
    const lines: string[] = [];
    const spy = vi.spyOn(process.stderr, "write").mockImplementation((chunk) => {
      lines.push(String(chunk));
      return true;
    });
    try {
      const log = createLogger({ component: "t" });
      log.child({ runId: "run_abc" }).warn("about a run");
      log.child({ runId: "run_abc", step: "each[1].fetch", attempt: 2 }).warn("about a step");
      log.warn("about nothing");
    } finally {
      spy.mockRestore();
    }
    const [run, step, none] = lines.map((l) => JSON.parse(l) as Record<string, unknown>);
    expect(run).toMatchObject({ runId: "run_abc", traceId: runTraceId("run_abc") });
    expect(run!.spanId).toBeUndefined();
    expect(step).toMatchObject({
      traceId: runTraceId("run_abc"),
      spanId: stepSpanId("run_abc", "each[1].fetch", 2),
    });
    expect(none!.traceId).toBeUndefined();
  });

  it("sends no traceparent and exports nothing while tracing is off", async () => {
    setObservabilityConfig({ metrics: {} });
    try {
      const wf = await e.workflow({
        schemaVersion: 1,
        name: "Untraced",
        steps: [{ id: "call", type: "http", config: { url: `${stub.origin}/quiet` } }],
      });
      const runId = await e.start(wf);
      expect((await e.waitFor(runId, ["completed", "failed"])).status).toBe("completed");
      const quiet = stub.requests.find((r) => r.url === "/quiet")!;
      expect(quiet.headers.traceparent).toBeUndefined();
      await flushTraces();
      expect(received.filter((s) => s.traceId === runTraceId(runId))).toEqual([]);
    } finally {
      setObservabilityConfig({
        metrics: {},
        tracing: {
          endpoint: collector.origin,
          headers: { "x-collector-key": "k1" },
          serviceName: "sluice-test",
        },
      });
    }
  });
});
