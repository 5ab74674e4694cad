/**
 * POST /api/v1/runs (inline runs) over the route handler against the real engine: 201 and the
 * run completes with workflowId null; an invalid definition is a 400 listing every issue with its
 * path; the Idempotency-Key header answers the same run (200); ?inline=true lists it; an inline
 * run's approval gate is decided through POST /runs/{id}/approve like a saved workflow's.
 */
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { startRunHarness, type RunHarness } from "@/server/testing/run-harness";
import { createApiToken } from "@/server/services/api-tokens/create-api-token";
import * as approveRoute from "./[id]/approve/route";
import * as runRoute from "./[id]/route";
import * as runsRoute from "./route";

let e: RunHarness;
let token: string;
/** An approver's token: the editor who starts a run may not decide its gates. */
let approverToken: string;
beforeAll(async () => {
  e = await startRunHarness("inline-runs-api");
  token = (
    await createApiToken({ ctx: e.ws.ctx("editor"), input: { name: "api", role: "editor" } })
  ).token;
  approverToken = (
    await createApiToken({ ctx: e.ws.ctx("approver"), input: { name: "ok", role: "approver" } })
  ).token;
});
afterAll(async () => {
  await e?.close();
});

async function call(method: string, query: string, body?: unknown, headers = {}) {
  const handler = (method === "POST" ? runsRoute.POST : runsRoute.GET) as unknown as (
    req: Request,
    ctx: { params: Promise<Record<string, string>> },
  ) => Promise<Response>;
  const res = await handler(
    new Request(`http://localhost/api/v1/runs${query}`, {
      method,
      headers: {
        authorization: `Bearer ${token}`,
        "content-type": "application/json",
        ...headers,
      },
      body: body === undefined ? undefined : JSON.stringify(body),
    }),
    { params: Promise.resolve({}) },
  );
  return { status: res.status, body: (await res.json()) as Record<string, unknown> };
}

type Handler = (
  req: Request,
  ctx: { params: Promise<Record<string, string>> },
) => Promise<Response>;

/** A route under /api/v1/runs/{id}, as the approver. */
async function callRun(handler: unknown, method: string, id: string, body?: unknown) {
  const res = await (handler as Handler)(
    new Request(`http://localhost/api/v1/runs/${id}`, {
      method,
      headers: { authorization: `Bearer ${approverToken}`, "content-type": "application/json" },
      body: body === undefined ? undefined : JSON.stringify(body),
    }),
    { params: Promise.resolve({ id }) },
  );
  return { status: res.status, body: (await res.json()) as Record<string, unknown> };
}

const definition = {
  schemaVersion: 1,
  name: "Scratch",
  inputs: { who: { type: "string", required: true } },
  steps: [{ id: "hi", type: "transform", config: { value: "hi {{ input.who }}" } }],
  output: "{{ steps.hi.output.data }}",
};

describe("POST /api/v1/runs (inline)", () => {
  it("starts an inline run (201), repeats by Idempotency-Key (200), lists it with ?inline=true", async () => {
    const started = await call(
      "POST",
      "",
      { definition, input: { who: "api" } },
      { "idempotency-key": "inline-api-1" },
    );
    expect(started.status).toBe(201);
    expect(started.body).toMatchObject({
      runId: expect.stringMatching(/^run_/),
      deduplicated: false,
      hash: expect.stringMatching(/^sha256:/),
    });
    const runId = started.body.runId as string;
    const run = await e.waitFor(runId, ["completed", "failed"]);
    expect([run.status, run.workflowId, run.output]).toEqual(["completed", null, "hi api"]);

    const again = await call(
      "POST",
      "",
      { definition, input: { who: "api" } },
      { "idempotency-key": "inline-api-1" },
    );
    expect([again.status, again.body.runId]).toEqual([200, runId]);

    const listed = await call("GET", "?inline=true");
    expect(listed.status).toBe(200);
    const items = listed.body.items as { id: string; workflowId: string | null }[];
    expect(items.map((i) => [i.id, i.workflowId])).toEqual([[runId, null]]);
  });

  it("runs an inline definition with an approval gate: waiting, then approved through POST /runs/{id}/approve", async () => {
    const started = await call("POST", "", {
      definition: {
        schemaVersion: 1,
        name: "Gated scratch",
        steps: [
          { id: "ask", type: "approval", config: { prompt: "Go?" } },
          { id: "go", type: "transform", config: { value: "went" } },
        ],
        edges: [{ from: "ask", port: "approved", to: "go" }],
        output: "{{ steps.go.output.data }}",
      },
    });
    expect(started.status).toBe(201);
    const runId = started.body.runId as string;
    await e.pendingApproval(runId);
    await e.waitFor(runId, ["waiting"]);
    const run = await callRun(runRoute.GET, "GET", runId);
    expect([run.status, run.body.workflowId, run.body.workflowName]).toEqual([200, null, "inline"]);
    const gate = (run.body.pendingApprovals as Array<Record<string, unknown>>)[0]!;
    expect(gate).toMatchObject({ prompt: "Go?", canDecide: true });

    const approved = await callRun(approveRoute.POST, "POST", runId, {
      approve: true,
      resumeToken: gate.resumeToken,
    });
    expect(approved.status).toBe(200);
    const done = await e.waitFor(runId, ["completed", "failed", "cancelled"]);
    expect([done.status, done.workflowId, done.output]).toEqual(["completed", null, "went"]);
  });

  it("answers 400 with every issue and its path for an invalid definition", async () => {
    const res = await call("POST", "", {
      definition: {
        schemaVersion: 1,
        name: "Broken",
        steps: [
          { id: "a", type: "nope" },
          { id: "b", type: "transform", config: { value: 1 } },
        ],
        edges: [{ from: "b", to: "missing" }],
      },
    });
    expect(res.status).toBe(400);
    const error = res.body.error as { code: string; details: { issues: { path: unknown[] }[] } };
    expect(error.code).toBe("validation");
    const paths = error.details.issues.map((i) => i.path.join("."));
    expect(paths).toEqual(
      expect.arrayContaining(["steps.0.type", expect.stringMatching(/^edges\.0/)]),
    );
    // A missing definition is a 400 naming the field, not a 500.
    const missing = await call("POST", "", { input: {} });
    expect(missing.status).toBe(400);
    expect(JSON.stringify(missing.body)).toMatch(/definition/);
  });
});
