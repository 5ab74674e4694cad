/**
 * A caller's `trigger` metadata on a run start (the CLI's RFC §6.5 `trigger`), over both route
 * handlers against the real engine: kept with `input` as the run's trigger payload — a template
 * reads `{{ trigger.<key> }}`, GET /runs/{id} shows it — while the trigger type stays `api`.
 * A reserved `input` key, a non-object or more than 16 KiB is a 400 naming `trigger`.
 */
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { startRunHarness, type RunHarness } from "@/server/testing/run-harness";
import { createApiToken } from "@/server/services/api-tokens/create-api-token";
import * as workflowRunsRoute from "../workflows/[id]/runs/route";
import * as runRoute from "./[id]/route";
import * as runsRoute from "./route";

let e: RunHarness;
let token: string;
let workflowId: string;

const definition = {
  schemaVersion: 1,
  name: "Triggered",
  inputs: { who: { type: "string", required: true } },
  steps: [
    {
      id: "hi",
      type: "transform",
      config: { value: "hi {{ input.who }} from {{ trigger.source }} #{{ trigger.attempt }}" },
    },
  ],
  output: "{{ steps.hi.output.data }}",
};

beforeAll(async () => {
  e = await startRunHarness("run-trigger-api");
  token = (
    await createApiToken({ ctx: e.ws.ctx("editor"), input: { name: "api", role: "editor" } })
  ).token;
  workflowId = await e.workflow(definition);
});
afterAll(async () => {
  await e?.close();
});

type Handler = (
  req: Request,
  ctx: { params: Promise<Record<string, string>> },
) => Promise<Response>;

async function call(handler: unknown, method: string, url: string, id: string, body?: unknown) {
  const res = await (handler as Handler)(
    new Request(`http://localhost/api/v1${url}`, {
      method,
      headers: { authorization: `Bearer ${token}`, "content-type": "application/json" },
      body: body === undefined ? undefined : JSON.stringify(body),
    }),
    { params: Promise.resolve({ id }) },
  );
  return { status: res.status, body: (await res.json()) as Record<string, any> }; // eslint-disable-line @typescript-eslint/no-explicit-any
}

const startPublished = (body: unknown) =>
  call(workflowRunsRoute.POST, "POST", `/workflows/${workflowId}/runs`, workflowId, body);
const startInline = (body: unknown) => call(runsRoute.POST, "POST", "/runs", "", body);

describe("trigger metadata on a run start", () => {
  it("is the run's trigger payload next to input: templates read it, GET /runs/{id} shows it", async () => {
    const trigger = { source: "nightly-cron", attempt: 2, tick: "2024-06-01T00:00:00Z" };
    for (const start of [
      () => startPublished({ input: { who: "ops" }, trigger }),
      () => startInline({ definition, input: { who: "ops" }, trigger }),
    ]) {
      const started = await start();
      expect(started.status, JSON.stringify(started.body)).toBe(201);
      const runId = started.body.runId as string;
      const run = await e.waitFor(runId, ["completed", "failed"]);
      expect([run.status, run.output]).toEqual(["completed", "hi ops from nightly-cron #2"]);
      const read = await call(runRoute.GET, "GET", `/runs/${runId}`, runId);
      expect(read.body).toMatchObject({
        triggerType: "api",
        triggerPayload: { ...trigger, input: { who: "ops" } },
      });
    }
  });

  it("without one, the payload is the input alone, as before", async () => {
    const started = await startPublished({ input: { who: "ops" } });
    expect(started.status).toBe(201);
    const runId = started.body.runId as string;
    await e.waitFor(runId, ["completed", "failed"]);
    const read = await call(runRoute.GET, "GET", `/runs/${runId}`, runId);
    expect(read.body.triggerPayload).toEqual({ input: { who: "ops" } });
  });

  it("refuses a reserved key, a non-object and more than 16 KiB with a 400 naming trigger", async () => {
    const cases: [unknown, RegExp][] = [
      [{ input: { who: "x" } }, /trigger\.input is reserved/],
      ["cron", /trigger/],
      [{ note: "x".repeat(17_000) }, /trigger may be at most 16384 bytes of JSON/],
    ];
    for (const [trigger, message] of cases) {
      for (const start of [startPublished, startInline]) {
        const body =
          start === startInline
            ? { definition, input: { who: "x" }, trigger }
            : { input: { who: "x" }, trigger };
        const r = await start(body);
        expect(r.status, JSON.stringify(r.body)).toBe(400);
        expect(JSON.stringify(r.body.error)).toMatch(message);
        expect(JSON.stringify(r.body.error.details)).toContain("trigger");
      }
    }
  });
});
