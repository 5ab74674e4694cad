/**
 * GET /api/v1/runs/{id}/diff, GET /runs/{id}/rerun/preview, POST /runs/{id}/rerun with dryRun and
 * GET /proposals/{id}/impact over the route handlers, against the real engine: a viewer token
 * diffs and previews, a dry run starts nothing, another workspace's runs are 404.
 */
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { eq } from "drizzle-orm";
import { runs } from "@/db/schema";
import { createApiToken } from "@/server/services/api-tokens/create-api-token";
import { createProposal } from "@/server/services/proposals/create-proposal";
import { callRoute } from "@/server/testing/call-route";
import { createWorkspaceFixture } from "@/server/testing/harness";
import { startRunHarness, type RunHarness } from "@/server/testing/run-harness";
import * as impactRoute from "../proposals/[id]/impact/route";
import * as diffRoute from "./[id]/diff/route";
import * as previewRoute from "./[id]/rerun/preview/route";
import * as rerunRoute from "./[id]/rerun/route";

let e: RunHarness;
const tokens = {} as Record<"viewer" | "editor" | "foreign", string>;
beforeAll(async () => {
  e = await startRunHarness("run-compare-api");
  const other = await createWorkspaceFixture(e.db.db, "Other");
  for (const role of ["viewer", "editor"] as const)
    tokens[role] = (
      await createApiToken({ ctx: e.ws.ctx("admin"), input: { name: role, role } })
    ).token;
  tokens.foreign = (
    await createApiToken({ ctx: other.ctx("owner"), input: { name: "f", role: "owner" } })
  ).token;
});
afterAll(async () => {
  await e?.close();
});

function call(
  handler: unknown,
  method: string,
  path: string,
  id: string,
  as: keyof typeof tokens,
  body?: unknown,
) {
  return callRoute(handler, { method, path, params: { id }, token: tokens[as], body });
}

const def = (value: string) => ({
  schemaVersion: 1,
  name: "Compared",
  constraints: { allowSelfModification: true },
  inputs: { who: { type: "string", default: "x" } },
  steps: [
    { id: "greet", type: "transform", config: { value: `${value} {{ input.who }}` } },
    { id: "announce", type: "emit_event", config: { event: "compared", data: {} } },
  ],
});

describe("run compare over /api/v1", () => {
  let wf: string;
  let a: string;
  let b: string;
  beforeAll(async () => {
    wf = await e.workflow(def("hello"));
    a = (await e.waitFor(await e.start(wf, { who: "ann" }), ["completed"])).id;
    b = (await e.waitFor(await e.start(wf, { who: "bob" }), ["completed"])).id;
  });

  it("GET /runs/{id}/diff compares with ?with= or with the previous run", async () => {
    const named = await call(diffRoute.GET, "GET", `/runs/${b}/diff?with=${a}`, b, "viewer");
    expect(named.status).toBe(200);
    expect(named.body.a.id).toBe(a);
    const greet = named.body.steps.find((s: { path: string }) => s.path === "greet");
    expect(greet).toMatchObject({ verdict: "different" });
    expect(greet.output.changes).toMatchObject([{ before: "hello ann", after: "hello bob" }]);
    const previous = await call(diffRoute.GET, "GET", `/runs/${b}/diff`, b, "viewer");
    expect(previous.body.a.id).toBe(a);
    const first = await call(diffRoute.GET, "GET", `/runs/${a}/diff`, a, "viewer");
    expect(first.status).toBe(412);
    const foreign = await call(diffRoute.GET, "GET", `/runs/${b}/diff?with=${a}`, b, "foreign");
    expect(foreign.status).toBe(404);
  });

  it("previews a rerun for a viewer; POST rerun with dryRun starts nothing", async () => {
    const preview = await call(previewRoute.GET, "GET", `/runs/${a}/rerun/preview`, a, "viewer");
    expect(preview.status).toBe(200);
    expect(preview.body.rerun).toMatchObject([
      { stepId: "greet", sideEffect: false },
      { stepId: "announce", sideEffect: true, idempotency: { source: "none", key: null } },
    ]);
    const count = async () =>
      (await e.db.db.select().from(runs).where(eq(runs.workflowId, wf))).length;
    const before = await count();
    const dry = await call(rerunRoute.POST, "POST", `/runs/${a}/rerun`, a, "editor", {
      dryRun: true,
      fromStepId: "announce",
    });
    expect(dry.status).toBe(200);
    expect(dry.body).toMatchObject({ fromStepId: "announce", reused: ["greet"] });
    expect(await count()).toBe(before);
    const viewerRerun = await call(rerunRoute.POST, "POST", `/runs/${a}/rerun`, a, "viewer", {});
    expect(viewerRerun.status).toBe(403);
  });

  it("GET /proposals/{id}/impact lists in-flight runs and triggers", async () => {
    const p = await createProposal({
      ctx: e.ws.ctx("editor"),
      input: { workflowId: wf, baseHash: "current", summary: "v2", definition: def("hi") },
    });
    const r = await call(impactRoute.GET, "GET", `/proposals/${p.id}/impact`, p.id, "viewer");
    expect(r.status).toBe(200);
    expect(r.body).toMatchObject({ proposalId: p.id, inFlight: { total: 0 }, triggers: [] });
    const foreign = await call(
      impactRoute.GET,
      "GET",
      `/proposals/${p.id}/impact`,
      p.id,
      "foreign",
    );
    expect(foreign.status).toBe(404);
  });
});
