/**
 * The workflow, run and trigger routes end to end over HTTP handlers against a real database:
 * paging, slugs, draft conflicts, validate/publish/versions/compare/rollback, export/import,
 * delete confirmation, run lists and reruns, the SSE event stream, trigger CRUD.
 */
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { eq } from "drizzle-orm";
import { setProcessDb } from "@/db";
import { runs } from "@/db/schema";
import { createTestDb, type TestDb } from "@/db/testing";
import { createApiToken } from "@/server/services/api-tokens/create-api-token";
import { cancelRun } from "@/server/services/runs/cancel-run";
import { createWorkspaceFixture, type WorkspaceFixture } from "@/server/testing/harness";
import * as workflowsRoute from "./route";
import * as validateRoute from "./validate/route";
import * as importRoute from "./import/route";
import * as workflowRoute from "./[id]/route";
import * as draftRoute from "./[id]/draft/route";
import * as publishRoute from "./[id]/publish/route";
import * as enableRoute from "./[id]/enable/route";
import * as disableRoute from "./[id]/disable/route";
import * as exportRoute from "./[id]/export/route";
import * as versionsRoute from "./[id]/versions/route";
import * as versionRoute from "./[id]/versions/[versionId]/route";
import * as compareRoute from "./[id]/versions/compare/route";
import * as rollbackRoute from "./[id]/rollback/route";
import * as workflowRunsRoute from "./[id]/runs/route";
import * as workflowTriggersRoute from "./[id]/triggers/route";
import * as runsRoute from "../runs/route";
import * as runEventsRoute from "../runs/[id]/events/route";
import * as rerunRoute from "../runs/[id]/rerun/route";
import * as triggerRoute from "../triggers/[id]/route";
import * as triggerDisableRoute from "../triggers/[id]/disable/route";
import * as triggerFireRoute from "../triggers/[id]/fire/route";
import * as deliveriesRoute from "../triggers/[id]/deliveries/route";

import type { Operation } from "@/server/http/operation";
import { listRunEventsOp, listRunsOp, listWorkflowRunsOp } from "@/server/http/operations/runs";
import {
  createTriggerOp,
  getTriggerOp,
  listWorkflowTriggersOp,
  updateTriggerOp,
} from "@/server/http/operations/triggers";
import {
  listVersionsOp,
  listWorkflowsOp,
  rollbackWorkflowOp,
} from "@/server/http/operations/workflows";

/** The documented response schema (OpenAPI) accepts what the route really sent. */
function conforms(op: Operation, status: number, body: unknown) {
  const parsed = op.responses[status]!.schema!.safeParse(body);
  expect(parsed.error?.issues ?? [], `${op.operationId} ${status}`).toEqual([]);
}

type Handler = (
  req: Request,
  ctx: { params: Promise<Record<string, string>> },
) => Promise<Response>;

let t: TestDb;
let fx: WorkspaceFixture;
let token: string;
beforeAll(async () => {
  t = await createTestDb("workflowsapi");
  setProcessDb(t);
  fx = await createWorkspaceFixture(t.db, "Http");
  token = (await createApiToken({ ctx: fx.ctx("owner"), input: { name: "a", role: "admin" } }))
    .token;
});
afterAll(async () => {
  await t?.close();
});

async function raw(
  handler: unknown,
  method: string,
  url: string,
  opts: { params?: Record<string, string>; body?: unknown; headers?: Record<string, string> } = {},
) {
  return (handler as Handler)(
    new Request(`http://localhost/api/v1${url}`, {
      method,
      headers: {
        authorization: `Bearer ${token}`,
        "content-type": "application/json",
        ...opts.headers,
      },
      body: opts.body === undefined ? undefined : JSON.stringify(opts.body),
    }),
    { params: Promise.resolve(opts.params ?? {}) },
  );
}
async function call(
  handler: unknown,
  method: string,
  url: string,
  opts: { params?: Record<string, string>; body?: unknown } = {},
) {
  const res = await raw(handler, method, url, opts);
  return { status: res.status, body: await res.json() };
}

const def = (value: number, name = "Flow") => ({
  schemaVersion: 1,
  name,
  steps: [
    { id: "a", type: "transform", config: { value } },
    { id: "b", type: "transform", config: { value: "{{ steps.a.output }}" } },
  ],
});

async function create(name: string) {
  const r = await call(workflowsRoute.POST, "POST", "/workflows", { body: { name, tags: ["t"] } });
  expect(r.status).toBe(201);
  return r.body as { id: string; slug: string };
}

describe("workflows over HTTP", () => {
  it("lists with search, filters and cursor paging", async () => {
    const made = [];
    for (const n of ["Paged one", "Paged two", "Paged three"]) made.push(await create(n));
    const seen: string[] = [];
    let cursor: string | null = null;
    do {
      const r = await call(
        workflowsRoute.GET,
        "GET",
        `/workflows?search=Paged&limit=2${cursor ? `&cursor=${encodeURIComponent(cursor)}` : ""}`,
      );
      expect(r.status).toBe(200);
      conforms(listWorkflowsOp, 200, r.body);
      expect(r.body.items.length).toBeLessThanOrEqual(2);
      seen.push(...r.body.items.map((w: { id: string }) => w.id));
      cursor = r.body.nextCursor;
    } while (cursor);
    expect(seen.sort()).toEqual(made.map((m) => m.id).sort());

    const off = await call(disableRoute.POST, "POST", "/x", { params: { id: made[0]!.id } });
    expect(off.body).toMatchObject({ isEnabled: false });
    const disabled = await call(workflowsRoute.GET, "GET", "/workflows?search=Paged&enabled=false");
    expect(disabled.body.items.map((w: { id: string }) => w.id)).toEqual([made[0]!.id]);
    await call(enableRoute.POST, "POST", "/x", { params: { id: made[0]!.id } });
    const none = await call(workflowsRoute.GET, "GET", "/workflows?search=Paged&enabled=false");
    expect(none.body.items).toEqual([]);
  });

  it("gets by id or slug, patches metadata, refuses unknown keys", async () => {
    const w = await create("Slugged Flow");
    const byId = await call(workflowRoute.GET, "GET", "/x", { params: { id: w.id } });
    const bySlug = await call(workflowRoute.GET, "GET", "/x", { params: { id: "slugged-flow" } });
    expect(bySlug.body.id).toBe(w.id);
    expect(byId.body.slug).toBe("slugged-flow");
    const patched = await call(workflowRoute.PATCH, "PATCH", "/x", {
      params: { id: w.id },
      body: { slug: "renamed-flow", description: "new" },
    });
    expect(patched.body).toMatchObject({ slug: "renamed-flow", description: "new" });
    const typo = await call(workflowRoute.PATCH, "PATCH", "/x", {
      params: { id: w.id },
      body: { enabled: false },
    });
    expect(typo.status).toBe(400);
    expect(typo.body.error.message).toMatch(/enabled/);
  });

  it("saves drafts with revisions (409 on conflict), validates, publishes, compares, rolls back", async () => {
    const w = await create("Versioned");
    const p = { params: { id: w.id } };
    const rev = (await call(workflowRoute.GET, "GET", "/x", p)).body.draftRevision as number;
    const first = await call(draftRoute.PUT, "PUT", "/x", {
      ...p,
      body: { definition: def(1), baseRevision: rev },
    });
    expect(first.body).toMatchObject({ changed: true, revision: rev + 1, issues: [] });
    const stale = await call(draftRoute.PUT, "PUT", "/x", {
      ...p,
      body: { definition: def(2), baseRevision: rev },
    });
    expect(stale.status).toBe(409);
    expect(stale.body.error).toMatchObject({
      code: "conflict",
      details: { currentRevision: rev + 1 },
    });

    const invalid = await call(validateRoute.POST, "POST", "/workflows/validate", {
      body: { definition: { schemaVersion: 1, name: "Bad", steps: [{ id: "a", type: "nope" }] } },
    });
    expect(invalid.status).toBe(200);
    expect(invalid.body.ok).toBe(false);
    expect(invalid.body.hash).toBeNull();
    expect(invalid.body.issues[0].path).toEqual(["steps", 0, "type"]);
    const valid = await call(validateRoute.POST, "POST", "/workflows/validate", {
      body: { definition: def(1) },
    });
    expect(valid.body).toMatchObject({ ok: true, hash: expect.stringMatching(/^sha256:/) });

    const published = await call(publishRoute.POST, "POST", "/x", {
      ...p,
      body: { bump: "minor", notes: "via API", draftRevision: rev + 1 },
    });
    expect(published.body).toMatchObject({
      status: "created",
      version: "1.1.0",
      hash: valid.body.hash,
    });
    const stalePublish = await call(publishRoute.POST, "POST", "/x", {
      ...p,
      body: { draftRevision: rev },
    });
    expect(stalePublish.status).toBe(409);

    const versions = await call(versionsRoute.GET, "GET", "/x", p);
    conforms(listVersionsOp, 200, versions.body);
    expect(versions.body.items.map((v: { version: string }) => v.version)).toEqual([
      "1.1.0",
      "1.0.0",
    ]);
    const oldest = versions.body.items[1].id as string;
    const one = await call(versionRoute.GET, "GET", "/x", {
      params: { id: w.id, versionId: oldest },
    });
    expect(one.body).toMatchObject({ version: "1.0.0", isCurrent: false });
    const byNumber = await call(versionRoute.GET, "GET", "/x", {
      params: { id: w.id, versionId: "1.1.0" },
    });
    expect(byNumber.body).toMatchObject({ version: "1.1.0", isCurrent: true });
    expect(byNumber.body.definition.steps).toHaveLength(2);
    const missing = await call(versionRoute.GET, "GET", "/x", {
      params: { id: w.id, versionId: "9.9.9" },
    });
    expect(missing.status).toBe(404);
    const cmp = await raw(compareRoute.GET, "GET", `/x?from=${oldest}&to=draft`, p);
    expect(cmp.status).toBe(200);
    expect((await cmp.json()).to.label).toBe("Draft");
    const missingTo = await call(compareRoute.GET, "GET", `/x?from=${oldest}`, p);
    expect(missingTo.status).toBe(400);
    expect(missingTo.body.error.details.issues[0].path).toEqual(["to"]);

    const rolled = await call(rollbackRoute.POST, "POST", "/x", {
      ...p,
      body: { versionId: oldest, notes: "back" },
    });
    expect(rolled.body).toMatchObject({ version: "1.1.1", restored: "1.0.0" });
    conforms(rollbackWorkflowOp, 200, rolled.body);
    // Already current: 200 with alreadyAtVersion, and no new version.
    const again = await call(rollbackRoute.POST, "POST", "/x", {
      ...p,
      body: { versionId: rolled.body.versionId },
    });
    expect(again.status).toBe(200);
    expect(again.body).toEqual({
      alreadyAtVersion: true,
      version: "1.1.1",
      versionId: rolled.body.versionId,
      hash: rolled.body.hash,
    });
    const newest = versions.body.items[0];
    const byHash = await call(rollbackRoute.POST, "POST", "/x", {
      ...p,
      body: { hash: newest.hash },
    });
    expect(byHash.status).toBe(200);
    expect(byHash.body).toMatchObject({
      alreadyAtVersion: false,
      version: "1.1.2",
      restored: "1.1.0",
      hash: newest.hash,
    });
    const badHash = await call(rollbackRoute.POST, "POST", "/x", {
      ...p,
      body: { hash: "sha256:abc" },
    });
    expect(badHash.status).toBe(400);
    expect(badHash.body.error.details.issues[0].path).toEqual(["hash"]);
    const neither = await call(rollbackRoute.POST, "POST", "/x", { ...p, body: {} });
    expect(neither.status).toBe(400);
    expect(neither.body.error.details.issues[0].path).toEqual(["versionId"]);
    const unknown = await call(rollbackRoute.POST, "POST", "/x", {
      ...p,
      body: { hash: `sha256:${"1".repeat(64)}` },
    });
    expect(unknown.status).toBe(404);
    const total = await call(versionsRoute.GET, "GET", "/x", p);
    expect(total.body.items).toHaveLength(4);
  });

  it("exports JSON and YAML files and imports YAML as a new version", async () => {
    const w = await create("Exported");
    const json = await raw(exportRoute.GET, "GET", "/x?format=json", { params: { id: w.id } });
    expect(json.headers.get("content-type")).toMatch(/^application\/json/);
    expect(json.headers.get("content-disposition")).toBe(
      'attachment; filename="exported-v1.0.0.json"',
    );
    expect(JSON.parse(await json.text()).name).toBe("Exported");
    const yaml = await raw(exportRoute.GET, "GET", "/x?format=yaml", { params: { id: w.id } });
    const text = await yaml.text();
    expect(text).toMatch(/^schemaVersion: 1/m);
    const bad = await call(exportRoute.GET, "GET", "/x?format=xml", { params: { id: w.id } });
    expect(bad.status).toBe(400);

    const imported = await call(importRoute.POST, "POST", "/workflows/import", {
      body: { content: text.replace("Exported", "Exported v2"), format: "yaml", workflowId: w.id },
    });
    expect(imported.status).toBe(201);
    expect(imported.body).toMatchObject({ id: w.id, version: "1.0.1", status: "created" });
    const brandNew = await call(importRoute.POST, "POST", "/workflows/import", {
      body: { content: JSON.stringify(def(3, "Brand new")) },
    });
    expect(brandNew.body).toMatchObject({ slug: "brand-new", version: "1.0.0" });
    const broken = await call(importRoute.POST, "POST", "/workflows/import", {
      body: { content: "steps: [", format: "yaml" },
    });
    expect(broken.status).toBe(400);
  });

  it("deletes only with the confirming name", async () => {
    const w = await create("Doomed");
    const p = { params: { id: w.id } };
    const refused = await call(workflowRoute.DELETE, "DELETE", "/x", p);
    expect(refused.status).toBe(400);
    expect(refused.body.error.details.issues[0].path).toEqual(["confirmName"]);
    const viaQuery = await raw(workflowRoute.DELETE, "DELETE", "/x?confirmName=Doomed", p);
    expect(viaQuery.status).toBe(200);
    expect((await call(workflowRoute.GET, "GET", "/x", p)).status).toBe(404);
  });
});

describe("runs over HTTP", () => {
  it("starts, lists with filters, reruns whole or from a step", async () => {
    const w = await create("Runner");
    const p = { params: { id: w.id } };
    const started = await raw(workflowRunsRoute.POST, "POST", "/x", {
      ...p,
      body: { input: {} },
      headers: { "idempotency-key": "k-1" },
    });
    expect(started.status).toBe(201);
    const { runId } = await started.json();
    const again = await raw(workflowRunsRoute.POST, "POST", "/x", {
      ...p,
      body: {},
      headers: { "idempotency-key": "k-1" },
    });
    expect(again.status).toBe(200);
    expect((await again.json()).runId).toBe(runId);

    const mine = await call(workflowRunsRoute.GET, "GET", "/x?status=queued,running", p);
    conforms(listWorkflowRunsOp, 200, mine.body);
    expect(mine.body.items.map((r: { id: string }) => r.id)).toEqual([runId]);
    const all = await call(runsRoute.GET, "GET", `/runs?workflowId=${w.id}&trigger=api`);
    expect(all.status).toBe(200);
    conforms(listRunsOp, 200, all.body);
    const none = await call(runsRoute.GET, "GET", `/runs?workflowId=${w.id}&status=failed`);
    expect(none.body.items).toEqual([]);

    await cancelRun({ ctx: fx.ctx("owner"), input: { runId } });
    const badStep = await call(rerunRoute.POST, "POST", "/x", {
      params: { id: runId },
      body: { fromStepId: "nope" },
    });
    expect(badStep.status).toBe(400);
    expect(badStep.body.error.message).toMatch(/nope/);
    const rerun = await call(rerunRoute.POST, "POST", "/x", {
      params: { id: runId },
      body: { idempotencyKey: "rerun-1" },
    });
    expect(rerun.status).toBe(201);
    expect(rerun.body.runId).not.toBe(runId);
    const repeat = await call(rerunRoute.POST, "POST", "/x", {
      params: { id: runId },
      body: { idempotencyKey: "rerun-1" },
    });
    expect(repeat.status).toBe(200);
    expect(repeat.body.runId).toBe(rerun.body.runId);
  });

  it("streams events as SSE: resumes after Last-Event-ID, ends once the run finished", async () => {
    const w = await create("Streamed");
    const started = await call(workflowRunsRoute.POST, "POST", "/x", {
      params: { id: w.id },
      body: {},
    });
    const runId = started.body.runId as string;
    const p = { params: { id: runId } };
    await cancelRun({ ctx: fx.ctx("owner"), input: { runId } });
    // No executor runs in this test: finish the run the way the engine would, by its status.
    await t.db.update(runs).set({ status: "cancelled" }).where(eq(runs.id, runId));
    const json = await call(runEventsRoute.GET, "GET", "/x", p);
    conforms(listRunEventsOp, 200, json.body);
    const events = json.body.events as { id: number; type: string }[];
    expect(events.map((e) => e.type)).toContain("run.queued");

    const sse = await raw(runEventsRoute.GET, "GET", "/x?timeout=5", {
      ...p,
      headers: { accept: "text/event-stream" },
    });
    expect(sse.headers.get("content-type")).toMatch(/^text\/event-stream/);
    const text = await sse.text();
    expect(text).toMatch(/^retry: \d+\n: connected/);
    for (const e of events) expect(text).toContain(`id: ${e.id}\nevent: ${e.type}\n`);
    expect(text.trimEnd()).toMatch(/event: end\ndata: \{"status":"cancelled"\}$/);

    const resumed = await (
      await raw(runEventsRoute.GET, "GET", "/x?timeout=5", {
        ...p,
        headers: { accept: "text/event-stream", "last-event-id": String(events[0]!.id) },
      })
    ).text();
    expect(resumed).not.toContain(`id: ${events[0]!.id}\n`);
    expect(resumed).toContain(`id: ${events.at(-1)!.id}\n`);
  });

  it("an unfinished run's stream stays open until its lifetime, then closes", async () => {
    const w = await create("Open stream");
    const started = await call(workflowRunsRoute.POST, "POST", "/x", {
      params: { id: w.id },
      body: {},
    });
    const t0 = Date.now();
    const res = await raw(runEventsRoute.GET, "GET", "/x?timeout=1", {
      params: { id: started.body.runId },
      headers: { accept: "text/event-stream" },
    });
    const text = await res.text();
    expect(Date.now() - t0).toBeGreaterThanOrEqual(900);
    expect(text).toContain("event: run.queued");
    expect(text).not.toContain("event: end");
  });

  it("a foreign or unknown run is a JSON 404 even when a stream is asked for", async () => {
    const res = await raw(runEventsRoute.GET, "GET", "/x", {
      params: { id: "run_nope" },
      headers: { accept: "text/event-stream" },
    });
    expect(res.status).toBe(404);
    expect((await res.json()).error.code).toBe("not_found");
  });
});

describe("triggers over HTTP", () => {
  it("creates (secret shown once), lists, updates, disables, fires, lists deliveries, deletes", async () => {
    const w = await create("Triggered");
    const created = await call(workflowTriggersRoute.POST, "POST", "/x", {
      params: { id: w.id },
      body: { kind: "webhook", name: "Hook", config: { mode: "async" } },
    });
    expect(created.status).toBe(201);
    conforms(createTriggerOp, 201, created.body);
    expect(created.body.secret).toEqual(expect.any(String));
    const id = created.body.trigger.id as string;
    const p = { params: { id } };
    const listed = await call(workflowTriggersRoute.GET, "GET", "/x", { params: { id: w.id } });
    conforms(listWorkflowTriggersOp, 200, listed.body);
    expect(listed.body.items.map((x: { id: string }) => x.id)).toEqual([id]);
    conforms(getTriggerOp, 200, (await call(triggerRoute.GET, "GET", "/x", p)).body);
    expect(JSON.stringify(listed.body)).not.toContain(created.body.secret);
    const renamed = await call(triggerRoute.PATCH, "PATCH", "/x", {
      ...p,
      body: { name: "Renamed" },
    });
    expect(renamed.body.name).toBe("Renamed");
    conforms(updateTriggerOp, 200, renamed.body);
    const fired = await call(triggerFireRoute.POST, "POST", "/x", {
      ...p,
      body: { input: {} },
    });
    expect(fired.status, JSON.stringify(fired.body)).toBe(201);
    expect(fired.body.runId).toMatch(/^run_/);
    const off = await call(triggerDisableRoute.POST, "POST", "/x", p);
    expect(off.body.enabled).toBe(false);
    const deliveries = await call(deliveriesRoute.GET, "GET", "/x?limit=5", p);
    expect(deliveries.body).toMatchObject({ items: expect.any(Array), nextCursor: null });
    expect((await call(triggerRoute.DELETE, "DELETE", "/x", p)).status).toBe(200);
    expect((await call(triggerRoute.GET, "GET", "/x", p)).status).toBe(404);
  });
});
