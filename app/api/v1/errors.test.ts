/**
 * JSON errors everywhere under /api/v1: unknown paths (404), wrong methods (405 + Allow) on every
 * route file, and bad input (400 with issue paths, 413 past the body cap) — never an HTML page,
 * an empty body or a 500.
 */
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { setProcessDb } from "@/db";
import { createTestDb, type TestDb } from "@/db/testing";
import { isMethodStub } from "@/server/http/endpoint";
import { API_METHODS } from "@/server/http/operation";
import { discoverApiRoutes, loadRouteModule, routeFiles, routePathOf } from "@/server/http/testing";
import { createApiToken } from "@/server/services/api-tokens/create-api-token";
import { createWorkflow } from "@/server/services/workflows/create-workflow";
import { publishWorkflow } from "@/server/services/workflows/publish-workflow";
import { saveDraft } from "@/server/services/workflows/save-draft";
import { createWorkspaceFixture, type WorkspaceFixture } from "@/server/testing/harness";
import * as catchAll from "./[...path]/route";
import * as workflowsRoute from "./workflows/route";
import * as workflowRoute from "./workflows/[id]/route";
import * as draftRoute from "./workflows/[id]/draft/route";
import * as runsRoute from "./runs/route";
import * as workflowRunsRoute from "./workflows/[id]/runs/route";
import * as eventsRoute from "./events/route";
import * as triggersRoute from "./workflows/[id]/triggers/route";

type Handler = (
  req: Request,
  ctx: { params: Promise<Record<string, unknown>> },
) => Promise<Response>;

let t: TestDb;
let fx: WorkspaceFixture;
let token: string;
beforeAll(async () => {
  t = await createTestDb("apierrors");
  setProcessDb(t);
  fx = await createWorkspaceFixture(t.db, "Err");
  token = (await createApiToken({ ctx: fx.ctx("owner"), input: { name: "e", role: "editor" } }))
    .token;
});
afterAll(async () => {
  await t?.close();
});

function call(
  handler: unknown,
  method: string,
  url: string,
  opts: { params?: Record<string, unknown>; body?: string; headers?: Record<string, string> } = {},
) {
  return (handler as Handler)(
    new Request(`http://localhost${url}`, {
      method,
      headers: {
        authorization: `Bearer ${token}`,
        "content-type": "application/json",
        ...opts.headers,
      },
      body: opts.body,
    }),
    { params: Promise.resolve(opts.params ?? {}) },
  );
}

async function errorOf(res: Response) {
  expect(res.headers.get("content-type")).toMatch(/^application\/json/);
  const body = await res.json();
  expect(Object.keys(body)).toEqual(["error"]);
  expect(body.error).toEqual(
    expect.objectContaining({ code: expect.any(String), message: expect.any(String) }),
  );
  return body.error as { code: string; message: string; details?: { issues?: unknown[] } };
}

describe("unknown paths", () => {
  it("answer the JSON 404 envelope for every method", async () => {
    for (const m of [...API_METHODS, "HEAD", "OPTIONS"]) {
      const res = await call(catchAll[m as keyof typeof catchAll], m, "/api/v1/nope/deeper", {
        params: { path: ["nope", "deeper"] },
      });
      expect(res.status).toBe(404);
      if (m === "HEAD") continue;
      const e = await errorOf(res);
      expect(e.code).toBe("not_found");
      expect(e.message).toContain(`${m} /api/v1/nope/deeper`);
    }
  });
});

describe("wrong methods", () => {
  it("every route file answers a JSON 405 with Allow for the methods it lacks", async () => {
    let checked = 0;
    for (const file of routeFiles()) {
      const routePath = routePathOf(file);
      if (routePath === "/api/v1/[...path]") continue;
      const mod = await loadRouteModule(routePath);
      const implemented = API_METHODS.filter((m) => !isMethodStub(mod[m]));
      expect(implemented.length, routePath).toBeGreaterThan(0);
      const allow = [...implemented, ...(implemented.includes("GET") ? ["HEAD"] : []), "OPTIONS"]
        .sort()
        .join(", ");
      for (const m of API_METHODS.filter((x) => !implemented.includes(x))) {
        const res = await call(mod[m], m, routePath);
        expect(res.status, `${m} ${routePath}`).toBe(405);
        expect(res.headers.get("allow")).toBe(allow);
        const e = await errorOf(res);
        expect(e.code).toBe("method_not_allowed");
        checked++;
      }
      const options = await call(mod.OPTIONS, "OPTIONS", routePath);
      expect(options.status).toBe(204);
      expect(options.headers.get("allow")).toBe(allow);
      // HEAD is Next's GET when the route has one; otherwise our 405.
      if (!implemented.includes("GET")) expect(isMethodStub(mod.HEAD)).toBe(true);
      else expect(mod.HEAD).toBeUndefined();
    }
    expect(checked).toBeGreaterThan(50);
  });
});

describe("bad input is a 400 naming the path, never a 500", () => {
  it("body: wrong types, unknown keys, malformed JSON", async () => {
    let res = await call(workflowsRoute.POST, "POST", "/api/v1/workflows", {
      body: JSON.stringify({ name: 5 }),
    });
    expect(res.status).toBe(400);
    let e = await errorOf(res);
    expect(e.code).toBe("validation");
    expect(e.message).toMatch(/^Request body is invalid at name/);
    expect(e.details?.issues).toEqual([expect.objectContaining({ path: ["name"] })]);

    res = await call(workflowsRoute.POST, "POST", "/api/v1/workflows", {
      body: JSON.stringify({ name: "ok", colour: "red" }),
    });
    e = await errorOf(res);
    expect(res.status).toBe(400);
    expect(e.message).toMatch(/colour/);

    res = await call(workflowsRoute.POST, "POST", "/api/v1/workflows", { body: "{nope" });
    expect(res.status).toBe(400);
    expect((await errorOf(res)).message).toMatch(/not valid JSON/);

    res = await call(workflowsRoute.POST, "POST", "/api/v1/workflows", { body: "[1,2]" });
    expect(res.status).toBe(400);
  });

  it("query: bad numbers, enums and booleans name the parameter", async () => {
    for (const [qs, key] of [
      ["limit=abc", "limit"],
      ["limit=0", "limit"],
      ["status=nope", "status"],
      ["enabled=maybe", "enabled"],
    ] as const) {
      const res = await call(workflowsRoute.GET, "GET", `/api/v1/workflows?${qs}`);
      expect(res.status, qs).toBe(400);
      expect((await errorOf(res)).details?.issues).toEqual([
        expect.objectContaining({ path: [key] }),
      ]);
    }
    const res = await call(runsRoute.GET, "GET", "/api/v1/runs?status=queued,bogus");
    expect(res.status).toBe(400);
    expect((await errorOf(res)).details?.issues).toEqual([
      expect.objectContaining({ path: ["status", 1] }),
    ]);
  });

  it("nested discriminated bodies name the nested path", async () => {
    const wf = await createWorkflow({ ctx: fx.ctx("owner"), input: { name: "T" } });
    const res = await call(triggersRoute.POST, "POST", `/api/v1/workflows/${wf.id}/triggers`, {
      params: { id: wf.id },
      body: JSON.stringify({ kind: "schedule", name: "S", config: { cron: "* * * * *", tz: 1 } }),
    });
    expect(res.status).toBe(400);
    expect(JSON.stringify((await errorOf(res)).details)).toContain('"config"');
    const kind = await call(triggersRoute.POST, "POST", `/api/v1/workflows/${wf.id}/triggers`, {
      params: { id: wf.id },
      body: JSON.stringify({ kind: "carrier-pigeon", name: "S", config: {} }),
    });
    expect(kind.status).toBe(400);
    expect((await errorOf(kind)).details?.issues).toEqual([
      expect.objectContaining({ path: ["kind"] }),
    ]);
  });

  it("limits are named in the message: a batch of 101 events, a name past its cap, a run input nested too deep", async () => {
    const batch = Array.from({ length: 101 }, (_, i) => ({ name: "order.paid", data: { i } }));
    let res = await call(eventsRoute.POST, "POST", "/api/v1/events", {
      body: JSON.stringify(batch),
    });
    expect(res.status).toBe(400);
    let e = await errorOf(res);
    // Was "Invalid input" (the union of one event | a batch): the batch branch names its limit.
    expect(e.message).toBe(
      "Request body is invalid: send at most 100 events per request (got 101)",
    );

    res = await call(eventsRoute.POST, "POST", "/api/v1/events", {
      body: JSON.stringify({ name: 5 }),
    });
    e = await errorOf(res);
    expect(e.message).toBe("Request body is invalid at name: expected string, got a number");

    res = await call(workflowsRoute.POST, "POST", "/api/v1/workflows", {
      body: JSON.stringify({ name: "x".repeat(201) }),
    });
    e = await errorOf(res);
    expect(e.message).toMatch(/at name: .*at most 200 characters \(got 201\)/);

    const wf = await createWorkflow({ ctx: fx.ctx("owner"), input: { name: "Deep" } });
    await saveDraft({
      ctx: fx.ctx("owner"),
      input: {
        workflowId: wf.id,
        definition: {
          schemaVersion: 1,
          name: "Deep",
          inputs: { o: { type: "object" } },
          steps: [{ id: "a", type: "transform", config: { value: 1 } }],
        },
      },
    });
    await publishWorkflow({ ctx: fx.ctx("owner"), input: { workflowId: wf.id } });
    let deep: unknown = 1;
    for (let i = 0; i < 70; i++) deep = { a: deep };
    res = await call(workflowRunsRoute.POST, "POST", `/api/v1/workflows/${wf.id}/runs`, {
      params: { id: wf.id },
      body: JSON.stringify({ input: { o: deep } }),
    });
    e = await errorOf(res);
    expect(res.status).toBe(400);
    // Was 'Input "o" must be an object, got {"a":{"a":…' (an object).
    expect(e.message).toMatch(/nesting deeper than 64 levels/);
    expect(e.message).not.toMatch(/must be an object/);
  });

  it("a repository override is a 400 naming the field: bad refs and URLs, or no repository to override", async () => {
    const wf = await createWorkflow({ ctx: fx.ctx("owner"), input: { name: "NoRepo" } });
    await saveDraft({
      ctx: fx.ctx("owner"),
      input: {
        workflowId: wf.id,
        definition: {
          schemaVersion: 1,
          name: "NoRepo",
          steps: [{ id: "a", type: "transform", config: { value: 1 } }],
        },
      },
    });
    await publishWorkflow({ ctx: fx.ctx("owner"), input: { workflowId: wf.id } });
    for (const [repository, message] of [
      [{ ref: "--upload-pack=touch /tmp/x" }, /repository\.ref: .*must not start with "-"/],
      [{ url: "ext::sh -c touch% /tmp/x", ref: "main" }, /repository\.url: Git transport helpers/],
      [{ ref: "main" }, /declares no repository/],
    ] as const) {
      const res = await call(workflowRunsRoute.POST, "POST", `/api/v1/workflows/${wf.id}/runs`, {
        params: { id: wf.id },
        body: JSON.stringify({ repository }),
      });
      expect(res.status).toBe(400);
      expect((await errorOf(res)).message).toMatch(message);
    }
  });

  it("text Postgres cannot store (NUL, a lone surrogate) is a 400 naming the field, nothing written", async () => {
    const wf = await createWorkflow({ ctx: fx.ctx("owner"), input: { name: "Nul" } });
    for (const body of [
      '{"definition":{"schemaVersion":1,"name":"A\\u0000B","steps":[]}}',
      '{"definition":{"schemaVersion":1,"name":"ok","steps":[{"id":"a","type":"transform","config":{"value":"\\ud800"}}]}}',
    ]) {
      const res = await call(draftRoute.PUT, "PUT", `/api/v1/workflows/${wf.id}/draft`, {
        params: { id: wf.id },
        body,
      });
      expect(res.status, body).toBe(400);
      const err = await errorOf(res);
      expect(err.message).toMatch(/NUL|surrogate/);
      expect(err.details?.issues).toEqual([
        expect.objectContaining({ path: expect.arrayContaining(["definition"]) }),
      ]);
    }
  });

  it("bodies past the cap answer 413 whatever Content-Length says", async () => {
    const big = JSON.stringify({ name: "x".repeat(2 * 1024 * 1024) });
    let res = await call(eventsRoute.POST, "POST", "/api/v1/events", { body: big });
    expect(res.status).toBe(413);
    expect((await errorOf(res)).code).toBe("payload_too_large");
    const wf = await createWorkflow({ ctx: fx.ctx("owner"), input: { name: "Big" } });
    const huge = JSON.stringify({ definition: { pad: "x".repeat(3 * 1024 * 1024) } });
    res = await call(draftRoute.PUT, "PUT", `/api/v1/workflows/${wf.id}/draft`, {
      params: { id: wf.id },
      body: huge,
      headers: { "content-length": "10" },
    });
    expect(res.status).toBe(413);
  });

  it("path ids past the contract's bounds are a 400, unknown ones a 404", async () => {
    let res = await call(workflowRoute.GET, "GET", "/api/v1/workflows/x", {
      params: { id: "x".repeat(65) },
    });
    expect(res.status).toBe(400);
    expect((await errorOf(res)).details?.issues).toEqual([
      expect.objectContaining({ path: ["id"] }),
    ]);
    res = await call(workflowRoute.GET, "GET", "/api/v1/workflows/wf_nope", {
      params: { id: "wf_nope" },
    });
    expect(res.status).toBe(404);
    expect((await errorOf(res)).code).toBe("not_found");
  });
});

describe("garbage never reaches a 500", () => {
  it("every route answers odd bodies, queries and ids with a 4xx JSON envelope (or success)", async () => {
    const bodies = ["null", "[]", '"text"', "42", "{}", '{"unexpected":{"deep":[1,2,3]}}', "{"];
    const queries = ["", "?limit=-1&cursor=%00&status=,,&from=yesterday&format=pdf&after=x"];
    let calls = 0;
    for (const r of await discoverApiRoutes()) {
      const params = Object.fromEntries(
        [...r.path.matchAll(/\[(\w+)\]/g)].map((m) => [m[1]!, "x_unknown"]),
      );
      for (const q of queries)
        for (const body of r.method === "GET" ? [undefined] : bodies) {
          const res = await call(r.handler, r.method, `${r.path}${q}`, { params, body });
          calls++;
          expect(res.status, `${r.method} ${r.path}${q} ${body}`).toBeLessThan(500);
          if (res.status >= 400) await errorOf(res);
          else await res.body?.cancel();
        }
    }
    expect(calls).toBeGreaterThan(200);
  });
});
