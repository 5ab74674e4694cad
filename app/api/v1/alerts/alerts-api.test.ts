/**
 * The alert routes of /api/v1 over their route handlers: roles through API tokens (viewers read,
 * editors set a workflow's, admins the workspace's), another workspace's workflow is not found,
 * bad bodies are refused naming the field, and answers match the documented schemas.
 */
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { setProcessDb } from "@/db";
import { createTestDb, type TestDb } from "@/db/testing";
import { getWorkflowAlertsOp, listAlertsOp } from "@/server/http/operations/alerts";
import { createApiToken } from "@/server/services/api-tokens/create-api-token";
import { createWorkflow } from "@/server/services/workflows/create-workflow";
import { createWorkspaceFixture, type WorkspaceFixture } from "@/server/testing/harness";
import * as workflowAlerts from "@/app/api/v1/workflows/[id]/alerts/route";
import * as list from "./route";
import * as settings from "./settings/route";

let t: TestDb;
let fx: WorkspaceFixture;
let other: WorkspaceFixture;
const tokens: Record<"viewer" | "editor" | "admin", string> = { viewer: "", editor: "", admin: "" };
let wf: string;
let handler: string;
let otherWf: string;

beforeAll(async () => {
  t = await createTestDb("alertsapi");
  setProcessDb(t);
  fx = await createWorkspaceFixture(t.db, "AlertsApi");
  other = await createWorkspaceFixture(t.db, "AlertsApiOther");
  for (const role of ["viewer", "editor", "admin"] as const)
    tokens[role] = (
      await createApiToken({ ctx: fx.ctx("owner"), input: { name: role, role } })
    ).token;
  wf = (await createWorkflow({ ctx: fx.ctx("editor"), input: { name: "Billing" } })).id;
  handler = (await createWorkflow({ ctx: fx.ctx("editor"), input: { name: "On error" } })).id;
  otherWf = (await createWorkflow({ ctx: other.ctx("editor"), input: { name: "Theirs" } })).id;
});
afterAll(async () => {
  await t?.close();
});

function call(
  handlerFn: (req: Request, ctx: { params: Promise<Record<string, string>> }) => Promise<Response>,
  path: string,
  token: string,
  init: { method?: string; body?: unknown; params?: Record<string, string> } = {},
) {
  return handlerFn(
    new Request(`http://localhost/api/v1${path}`, {
      method: init.method ?? "GET",
      headers: { authorization: `Bearer ${token}`, "content-type": "application/json" },
      ...(init.body === undefined ? {} : { body: JSON.stringify(init.body) }),
    }),
    { params: Promise.resolve(init.params ?? {}) },
  );
}

describe("/api/v1 alerts", () => {
  it("workspace defaults: viewers read, only admins change", async () => {
    const read = await call(settings.GET, "/alerts/settings", tokens.viewer);
    expect(read.status).toBe(200);
    expect(await read.json()).toMatchObject({ channels: [], windowMinutes: 60 });
    const body = {
      channels: [{ kind: "webhook", url: "https://alerts.example/in" }],
      windowMinutes: 15,
      gateAgeHours: 4,
      rejectThreshold: 20,
    };
    const denied = await call(settings.PUT, "/alerts/settings", tokens.editor, {
      method: "PUT",
      body,
    });
    expect(denied.status).toBe(403);
    const ok = await call(settings.PUT, "/alerts/settings", tokens.admin, { method: "PUT", body });
    expect(ok.status).toBe(200);
    expect(await ok.json()).toEqual(body);
    const bad = await call(settings.PUT, "/alerts/settings", tokens.admin, {
      method: "PUT",
      body: { channels: [{ kind: "pager" }] },
    });
    expect(bad.status).toBe(400);
    expect(JSON.stringify(await bad.json())).toContain("channels");
  });

  it("a workflow's settings: editors set them, viewers read, another workspace's workflow is not found", async () => {
    const path = `/workflows/${wf}/alerts`;
    const put = (token: string, body: unknown) =>
      call(workflowAlerts.PUT, path, token, { method: "PUT", body, params: { id: wf } });
    expect((await put(tokens.viewer, { channels: null, errorWorkflowId: handler })).status).toBe(
      403,
    );
    const saved = await put(tokens.editor, { channels: null, errorWorkflowId: handler });
    expect(saved.status).toBe(200);
    const self = await put(tokens.editor, { channels: null, errorWorkflowId: wf });
    expect(self.status).toBe(400);
    expect((await self.json()).error.message).toMatch(/own error workflow/);

    const read = await call(workflowAlerts.GET, path, tokens.viewer, { params: { id: wf } });
    const body = await read.json();
    expect(getWorkflowAlertsOp.responses[200]!.schema!.safeParse(body).success).toBe(true);
    expect(body).toMatchObject({ errorWorkflowId: handler, channels: null });
    expect(body.effectiveChannels).toEqual([{ kind: "webhook", url: "https://alerts.example/in" }]);

    const foreign = await call(workflowAlerts.GET, `/workflows/${otherWf}/alerts`, tokens.admin, {
      params: { id: otherWf },
    });
    expect(foreign.status).toBe(404);
  });

  it("lists the workspace's alerts as documented", async () => {
    const res = await call(list.GET, `/alerts?workflowId=${wf}&limit=5`, tokens.viewer);
    expect(res.status).toBe(200);
    const body = await res.json();
    expect(listAlertsOp.responses[200]!.schema!.safeParse(body).success).toBe(true);
    expect(body).toEqual({ alerts: [] });
  });
});
