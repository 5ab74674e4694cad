/**
 * /api/metrics through its real route handler: runs started through the real executor, webhook
 * deliveries through the real receiver, the scraped text parsed back into samples.
 */
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { GET } from "@/app/api/metrics/route";
import { handleWebhook } from "@/server/http/hooks";
import { getRuntime } from "@/server/runtime";
import { createTrigger } from "@/server/services/triggers/create-trigger";
import {
  startWebhookAdmitter,
  type AdmitterHandle,
} from "@/server/services/triggers/webhook-admitter";
import { startRunHarness, type RunHarness } from "@/server/testing/run-harness";
import { setObservabilityConfig } from "./config";
import { resetMetrics } from "./registry";

const TOKEN = "metrics-token-0123456789";
let e: RunHarness;
let admitter: AdmitterHandle;

beforeAll(async () => {
  setObservabilityConfig({ metrics: { token: TOKEN } });
  resetMetrics();
  e = await startRunHarness("metrics");
  admitter = startWebhookAdmitter({ db: e.db.db, ...getRuntime(), pollMs: 50 });
});
afterAll(async () => {
  await admitter?.stop();
  await e?.close();
  setObservabilityConfig(undefined);
});

interface Sample {
  name: string;
  labels: Record<string, string>;
  value: number;
}

/** The Prometheus text format's sample lines: `name{a="x",b="y"} 1.5`. */
function parseMetrics(text: string): Sample[] {
  const out: Sample[] = [];
  for (const line of text.split("\n")) {
    if (!line || line.startsWith("#")) continue;
    const m = /^([a-zA-Z_:][a-zA-Z0-9_:]*)(?:\{(.*)\})?\s+(\S+)$/.exec(line);
    if (!m) throw new Error(`not a sample line: ${line}`);
    const labels: Record<string, string> = {};
    for (const l of (m[2] ?? "").matchAll(/(\w+)="((?:[^"\\]|\\.)*)"/g))
      labels[l[1]!] = l[2]!.replace(/\\(.)/g, (_, c: string) => (c === "n" ? "\n" : c));
    out.push({ name: m[1]!, labels, value: Number(m[3]) });
  }
  return out;
}

function value(samples: Sample[], name: string, labels: Record<string, string> = {}): number {
  return samples
    .filter((s) => s.name === name && Object.entries(labels).every(([k, v]) => s.labels[k] === v))
    .reduce((sum, s) => sum + s.value, 0);
}

const scrapeRequest = (headers: Record<string, string> = {}) =>
  GET(new Request("http://localhost/api/metrics", { headers }));

async function scrape(): Promise<Sample[]> {
  const res = await scrapeRequest({ authorization: `Bearer ${TOKEN}` });
  expect(res.status).toBe(200);
  expect(res.headers.get("content-type")).toContain("text/plain");
  return parseMetrics(await res.text());
}

/** Scrapes until `check` holds (ended runs are observed just after their transaction commits). */
async function scrapeUntil(check: (s: Sample[]) => boolean, what: string): Promise<Sample[]> {
  return e.h.until(async () => {
    const s = await scrape();
    return check(s) ? s : undefined;
  }, what);
}

describe("/api/metrics access", () => {
  it("is off (404) without a token or an address list", async () => {
    setObservabilityConfig({ metrics: {} });
    try {
      const res = await scrapeRequest({ authorization: `Bearer ${TOKEN}` });
      expect(res.status).toBe(404);
    } finally {
      setObservabilityConfig({ metrics: { token: TOKEN } });
    }
  });

  it("asks for the token (401), refuses a wrong one (401), answers the right one (200)", async () => {
    const none = await scrapeRequest();
    expect(none.status).toBe(401);
    expect(none.headers.get("www-authenticate")).toMatch(/^Bearer/);
    expect((await none.json()).error.code).toBe("unauthorized");
    expect((await scrapeRequest({ authorization: "Bearer wrong-token-0123456789" })).status).toBe(
      401,
    );
    expect((await scrapeRequest({ authorization: `Basic ${TOKEN}` })).status).toBe(401);
    const ok = await scrapeRequest({ authorization: `Bearer ${TOKEN}` });
    expect(ok.status).toBe(200);
    expect(ok.headers.get("cache-control")).toContain("no-store");
  });

  it("with an address list, answers listed addresses only (and still wants the token when set)", async () => {
    setObservabilityConfig({ metrics: { allow: ["10.0.0.0/8", "::1"] } });
    try {
      expect((await scrapeRequest({ "x-forwarded-for": "10.1.2.3" })).status).toBe(200);
      expect((await scrapeRequest({ "x-forwarded-for": "::1" })).status).toBe(200);
      expect((await scrapeRequest({ "x-forwarded-for": "192.168.1.5" })).status).toBe(403);
      expect((await scrapeRequest()).status).toBe(403);
      setObservabilityConfig({ metrics: { allow: ["10.0.0.0/8"], token: TOKEN } });
      expect((await scrapeRequest({ "x-forwarded-for": "10.1.2.3" })).status).toBe(401);
      const both = await scrapeRequest({
        "x-forwarded-for": "10.1.2.3",
        authorization: `Bearer ${TOKEN}`,
      });
      expect(both.status).toBe(200);
    } finally {
      setObservabilityConfig({ metrics: { token: TOKEN } });
    }
  });
});

describe("run metrics", () => {
  const runIds: string[] = [];

  it("counts started and ended runs by workflow and trigger, with run and step durations", async () => {
    const ok = await e.workflow({
      schemaVersion: 1,
      name: "Two steps",
      steps: [
        { id: "a", type: "transform", config: { value: 1 } },
        { id: "b", type: "transform", config: { value: "{{ steps.a.output.data }}" } },
      ],
    });
    const bad = await e.workflow({
      schemaVersion: 1,
      name: "Fails",
      steps: [
        {
          id: "boom",
          type: "code",
          config: { source: "export default function () { throw new Error('nope'); }" },
        },
      ],
    });
    for (const [wf, status] of [
      [ok, "completed"],
      [ok, "completed"],
      [bad, "failed"],
    ] as const) {
      const runId = await e.start(wf);
      runIds.push(runId);
      expect((await e.waitFor(runId, ["completed", "failed"])).status).toBe(status);
    }
    const s = await scrapeUntil(
      (s) =>
        value(s, "sluice_runs_finished_total", { workflow_id: bad, status: "failed" }) === 1 &&
        value(s, "sluice_step_duration_seconds_count", { step_type: "code" }) === 1 &&
        value(s, "sluice_step_duration_seconds_count", { step_type: "transform" }) === 4,
      "the three runs' metrics",
    );
    const started = (wf: string) =>
      value(s, "sluice_runs_started_total", { workflow_id: wf, trigger: "manual" });
    expect(started(ok)).toBe(2);
    expect(started(bad)).toBe(1);
    expect(
      value(s, "sluice_runs_finished_total", {
        workflow_id: ok,
        trigger: "manual",
        status: "completed",
      }),
    ).toBe(2);
    expect(value(s, "sluice_runs_finished_total", { workflow_id: ok, status: "failed" })).toBe(0);
    expect(
      value(s, "sluice_run_duration_seconds_count", { workflow_id: ok, status: "completed" }),
    ).toBe(2);
    expect(
      value(s, "sluice_step_duration_seconds_count", { step_type: "code", outcome: "failed" }),
    ).toBe(1);
    expect(value(s, "sluice_run_start_wait_seconds_count", { trigger: "manual" })).toBe(3);
    // Histograms carry their +Inf bucket equal to the count.
    expect(
      value(s, "sluice_step_duration_seconds_bucket", {
        step_type: "transform",
        outcome: "completed",
        le: "+Inf",
      }),
    ).toBe(4);
  });

  it("reads active runs and waiting gates at scrape time", async () => {
    const gate = await e.workflow({
      schemaVersion: 1,
      name: "Gate",
      steps: [{ id: "gate", type: "approval", config: { prompt: "hold" } }],
    });
    const runId = await e.start(gate);
    runIds.push(runId);
    await e.pendingApproval(runId);
    await e.waitFor(runId, ["waiting"]);
    const s = await scrape();
    expect(value(s, "sluice_runs_active", { status: "waiting" })).toBe(1);
    expect(value(s, "sluice_runs_active", { status: "queued" })).toBe(0);
    expect(value(s, "sluice_gates_waiting", { step_type: "approval", age: "lt_1h" })).toBe(1);
    expect(value(s, "sluice_gates_waiting", { step_type: "approval", age: "gt_24h" })).toBe(0);
    expect(value(s, "sluice_runs_queued_oldest_age_seconds")).toBe(0);
    for (const name of [
      "sluice_outbox_pending",
      "sluice_outbox_lag_seconds",
      "sluice_executor_jobs_due",
      "sluice_executor_lag_seconds",
      "sluice_db_scrape_seconds",
    ])
      expect(s.some((x) => x.name === name)).toBe(true);
    expect(value(s, "sluice_db_connections")).toBeGreaterThanOrEqual(1);
  });

  it("counts webhook deliveries by outcome and reason", async () => {
    const wf = await e.workflow({
      schemaVersion: 1,
      name: "Hooked",
      inputs: { order: { type: "string", required: true } },
      steps: [{ id: "echo", type: "transform", config: { value: "{{ input.order }}" } }],
    });
    const t = await createTrigger({
      ctx: e.ws.ctx("editor"),
      input: {
        kind: "webhook",
        workflowId: wf,
        name: "Orders",
        config: {
          mapping: { order: "$.order.id" },
          verification: { preset: "none" },
          idempotency: "body_hash",
        },
      },
    });
    const path = t.trigger.path!;
    const send = (body: string, method = "POST") =>
      handleWebhook(
        new Request(`http://localhost/api/hooks/${path}`, {
          method,
          headers: { "content-type": "application/json" },
          body,
        }),
        { params: Promise.resolve({ path: path.split("/") }) },
      );
    const first = await send(JSON.stringify({ order: { id: "A-1" } }));
    expect(first.status).toBe(202);
    runIds.push((await first.json()).runId);
    expect((await send(JSON.stringify({ order: { id: "A-1" } }))).status).toBe(200);
    expect((await send("{not json")).status).toBe(400);
    expect((await send(JSON.stringify({ order: {} }))).status).toBe(422);
    const s = await scrape();
    const count = (outcome: string, reason: string) =>
      value(s, "sluice_webhook_deliveries_total", { outcome, reason });
    expect(count("accepted", "none")).toBe(1);
    expect(count("duplicate", "delivery_key")).toBe(1);
    expect(count("rejected", "invalid_json")).toBe(1);
    expect(count("rejected", "mapping_failed")).toBe(1);
  });

  it("never labels a sample with a run id", async () => {
    await admitter.drain();
    const s = await scrape();
    const labelValues = s.flatMap((x) => Object.values(x.labels));
    expect(labelValues.length).toBeGreaterThan(10);
    expect(runIds.length).toBeGreaterThan(3);
    for (const v of labelValues) {
      expect(v).not.toMatch(/^run_/);
      expect(runIds).not.toContain(v);
    }
    // Tracing was never configured here: its SDK was never started.
    expect((globalThis as { __sluiceTracing?: unknown }).__sluiceTracing).toBeUndefined();
  });
});
