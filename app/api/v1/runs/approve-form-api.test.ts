/**
 * POST /api/v1/runs/{id}/approve with an approval form, over the route handler against the real
 * engine: the form's fields in GET /runs/{id}, a 400 naming the field, the values in later steps.
 */
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { startRunHarness, type RunHarness } from "@/server/testing/run-harness";
import { createApiToken } from "@/server/services/api-tokens/create-api-token";
import * as approveRoute from "./[id]/approve/route";
import * as runRoute from "./[id]/route";

type Handler = (
  req: Request,
  ctx: { params: Promise<Record<string, string>> },
) => Promise<Response>;

let e: RunHarness;
let token: string;
beforeAll(async () => {
  e = await startRunHarness("approve-form-api");
  // The approver decides runs the editor starts (an initiator may not decide their own run).
  token = (
    await createApiToken({ ctx: e.ws.ctx("approver"), input: { name: "api", role: "approver" } })
  ).token;
});
afterAll(async () => {
  await e?.close();
});

async function call(handler: unknown, method: string, id: string, body?: unknown) {
  const res = await (handler as Handler)(
    new Request(`http://localhost/api/v1/runs/${id}`, {
      method,
      headers: { authorization: `Bearer ${token}`, "content-type": "application/json" },
      body: body === undefined ? undefined : JSON.stringify(body),
    }),
    { params: Promise.resolve({ id }) },
  );
  return { status: res.status, body: (await res.json()) as Record<string, unknown> };
}

describe("POST /api/v1/runs/{id}/approve with a form", () => {
  it("shows the fields, answers 400 naming a bad field, and the approved values reach later steps", async () => {
    const wf = await e.workflow({
      schemaVersion: 1,
      name: "Api form",
      steps: [
        {
          id: "ask",
          type: "approval",
          config: {
            prompt: "Go?",
            form: {
              ticket: { type: "string", required: true },
              replicas: { type: "number", default: 1 },
            },
          },
        },
        {
          id: "go",
          type: "transform",
          config: { value: "{{ steps.ask.output.data.form }}" },
        },
      ],
      edges: [{ from: "ask", port: "approved", to: "go" }],
      output: "{{ steps.go.output.data }}",
    });
    const runId = await e.start(wf);
    await e.pendingApproval(runId);
    const run = await call(runRoute.GET, "GET", runId);
    expect(run.status).toBe(200);
    const gate = (run.body.pendingApprovals as Array<Record<string, unknown>>)[0]!;
    expect(gate.form).toMatchObject({ ticket: { type: "string", required: true } });
    const resumeToken = gate.resumeToken as string;

    const bad = await call(approveRoute.POST, "POST", runId, {
      approve: true,
      resumeToken,
      form: { ticket: 7 },
    });
    expect(bad.status).toBe(400);
    expect(JSON.stringify(bad.body)).toMatch(/form\.ticket|"form","ticket"/);
    expect(JSON.stringify(bad.body)).toMatch(/Field \\"ticket\\" must be a string/);
    const missing = await call(approveRoute.POST, "POST", runId, { approve: true, resumeToken });
    expect(missing.status).toBe(400);
    expect(JSON.stringify(missing.body)).toMatch(/Field \\"ticket\\" is required/);

    const ok = await call(approveRoute.POST, "POST", runId, {
      approve: true,
      resumeToken,
      form: { ticket: "OPS-9", replicas: 3 },
    });
    expect(ok.status, JSON.stringify(ok.body)).toBe(200);
    const done = await e.waitFor(runId, ["completed", "failed", "cancelled"]);
    expect(done.output).toEqual({ ticket: "OPS-9", replicas: 3 });
  });
});

describe("POST /api/v1/runs/{id}/approve rejecting", () => {
  it("a rejection needs a reason: 400 naming reason (blank too), nothing decided; with one the run is rejected", async () => {
    const wf = await e.workflow({
      schemaVersion: 1,
      name: "Api reject",
      steps: [{ id: "ask", type: "approval", config: { prompt: "Go?" } }],
    });
    const runId = await e.start(wf);
    await e.pendingApproval(runId);
    const run = await call(runRoute.GET, "GET", runId);
    const resumeToken = (run.body.pendingApprovals as Array<Record<string, unknown>>)[0]!
      .resumeToken as string;
    for (const reason of [undefined, "", "   "]) {
      const refused = await call(approveRoute.POST, "POST", runId, {
        approve: false,
        resumeToken,
        ...(reason === undefined ? {} : { reason }),
      });
      expect(refused.status, String(reason)).toBe(400);
      expect(refused.body.error).toMatchObject({
        code: "validation",
        message: expect.stringMatching(/reason for rejecting/),
        details: { issues: [{ path: ["reason"], message: "Required when rejecting" }] },
      });
    }
    const still = await call(runRoute.GET, "GET", runId);
    expect((still.body.pendingApprovals as unknown[]).length).toBe(1);

    const rejected = await call(approveRoute.POST, "POST", runId, {
      approve: false,
      resumeToken,
      reason: "not this week",
    });
    expect(rejected.status, JSON.stringify(rejected.body)).toBe(200);
    expect(rejected.body).toMatchObject({ status: "rejected" });
    const done = await e.waitFor(runId, ["completed", "failed", "cancelled"]);
    expect(done.status).toBe("cancelled");
  });
});
