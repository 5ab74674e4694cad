/**
 * Issue 25 items 1–2 through the real route handlers: input nested past the run input limit (64
 * levels) is a 400 naming where on every surface — webhooks, /api/v1 bodies, /api/trpc, /api/mcp —
 * instead of a stack overflow (a 500) wherever the value is serialised; /api/trpc has the body
 * cap of /api/v1 (413, 1 MiB unless the procedure documents more) and at most 20 calls a batch.
 */
import { eq } from "drizzle-orm";
import { encode } from "next-auth/jwt";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { setProcessDb } from "@/db";
import { proposals, triggerDeliveries, workflows } from "@/db/schema";
import { createTestDb, type TestDb } from "@/db/testing";
import { MAX_TRPC_BATCH } from "@/lib/trpc/limits";
import { getAuthOptions } from "@/server/auth/options";
import { handleWebhook } from "@/server/http/hooks";
import { createApiToken } from "@/server/services/api-tokens/create-api-token";
import { createSession } from "@/server/services/sessions/create-session";
import { createTrigger } from "@/server/services/triggers/create-trigger";
import { createWorkflow } from "@/server/services/workflows/create-workflow";
import { publishWorkflow } from "@/server/services/workflows/publish-workflow";
import { saveDraft } from "@/server/services/workflows/save-draft";
import { createWorkspaceFixture, type WorkspaceFixture } from "@/server/testing/harness";
import * as mcpRoute from "./mcp/route";
import * as trpcRoute from "./trpc/[trpc]/route";
import * as eventsRoute from "./v1/events/route";

let t: TestDb;
let fx: WorkspaceFixture;
let token: string;
let cookie: string;
let workflowId: string;
let hookPath: string;

beforeAll(async () => {
  t = await createTestDb("reqlimits");
  setProcessDb(t);
  fx = await createWorkspaceFixture(t.db, "Limits");
  const owner = fx.ctx("owner");
  token = (await createApiToken({ ctx: owner, input: { name: "limits", role: "owner" } })).token;
  const wf = await createWorkflow({ ctx: owner, input: { name: "Deep" } });
  await saveDraft({
    ctx: owner,
    input: {
      workflowId: wf.id,
      definition: {
        schemaVersion: 1,
        name: "Deep",
        inputs: { doc: { type: "object" } },
        steps: [{ id: "s", type: "transform", config: { value: 1 } }],
      },
    },
  });
  await publishWorkflow({ ctx: owner, input: { workflowId: wf.id } });
  workflowId = wf.id;
  const hook = await createTrigger({
    ctx: owner,
    input: {
      kind: "webhook",
      workflowId,
      name: "Hook",
      // Nothing mapped: the body reaches the database only as the run's trigger payload.
      config: { verification: { preset: "none" } },
    },
  });
  hookPath = hook.trigger.path!;
  const userId = fx.members.owner;
  const { sessionId } = await createSession({ ctx: owner, input: { userId } });
  const jwt = await encode({
    token: { sub: userId, sid: sessionId, workspaceId: fx.workspaceId },
    secret: getAuthOptions().secret!,
  });
  cookie = `next-auth.session-token=${jwt}`;
});
afterAll(async () => {
  await t?.close();
});

/** `{"a":{"a":…}}` n objects deep (a string, never a JS value: JSON.stringify would overflow). */
const deepText = (n: number) => '{"a":'.repeat(n) + "1" + "}".repeat(n);

const trpc = (path: string, body: string, batch = false) =>
  trpcRoute.POST(
    new Request(`http://localhost/api/trpc/${path}${batch ? "?batch=1" : ""}`, {
      method: "POST",
      headers: { cookie, "content-type": "application/json" },
      body,
    }),
  );

/** A tRPC error answer: superjson's `{ error: { json: { message, data } } }`. */
async function trpcError(res: Response) {
  const body = (await res.json()) as {
    error?: { json: { message: string; data: { code: string; httpStatus: number } } };
  };
  return body.error!.json;
}

describe("nesting past the run input limit is a 400 naming where, never a 500", () => {
  it.each([5_000, 10_000])("a webhook body %i levels deep", async (depth) => {
    const res = await handleWebhook(
      new Request(`http://localhost/api/hooks/${hookPath}`, {
        method: "POST",
        headers: { "content-type": "application/json" },
        body: `{"doc":${deepText(depth)}}`,
      }),
      { params: Promise.resolve({ path: hookPath.split("/") }) },
    );
    expect(res.status).toBe(400);
    const { error } = (await res.json()) as {
      error: { code: string; message: string; details: { issues: { path: unknown[] }[] } };
    };
    expect(error.code).toBe("too_deep");
    expect(error.message).toMatch(
      /^The body is invalid at doc(\.a){63}: nesting deeper than 64 levels; flatten it$/,
    );
    expect(error.message.length).toBeLessThan(300);
    expect(error.details.issues[0]!.path.slice(0, 3)).toEqual(["body", "doc", "a"]);
    const [delivery] = await t.db
      .select()
      .from(triggerDeliveries)
      .where(eq(triggerDeliveries.httpStatus, 400));
    expect(delivery?.reason).toMatch(/nesting deeper than 64 levels/);
  });

  it.each([5_000, 10_000])("POST /api/v1/events data %i levels deep", async (depth) => {
    const res = await eventsRoute.POST(
      new Request("http://localhost/api/v1/events", {
        method: "POST",
        headers: { authorization: `Bearer ${token}`, "content-type": "application/json" },
        body: `{"name":"order.paid","data":${deepText(depth)}}`,
      }),
      { params: Promise.resolve({}) },
    );
    expect(res.status).toBe(400);
    const { error } = (await res.json()) as {
      error: { code: string; message: string; details: { issues: { path: unknown[] }[] } };
    };
    expect(error.code).toBe("validation");
    expect(error.message).toMatch(/^Request body is invalid at data\.a\.a/);
    expect(error.details.issues[0]!.path.slice(0, 2)).toEqual(["data", "a"]);
  });

  it("an /api/v1 body at the limit is still parsed (64 levels in all)", async () => {
    const res = await eventsRoute.POST(
      new Request("http://localhost/api/v1/events", {
        method: "POST",
        headers: { authorization: `Bearer ${token}`, "content-type": "application/json" },
        body: `{"name":"order.paid","data":${deepText(63)}}`,
      }),
      { params: Promise.resolve({}) },
    );
    expect(res.status, await res.clone().text()).toBeLessThan(300);
  });

  it.each([5_000, 10_000])("tRPC workflow.saveDraft definition %i levels deep", async (depth) => {
    const res = await trpc(
      "workflow.saveDraft",
      `{"json":{"workflowId":"${workflowId}","definition":${deepText(depth)}}}`,
    );
    expect(res.status).toBe(400);
    const error = await trpcError(res);
    expect(error.data.code).toBe("BAD_REQUEST");
    expect(error.message).toMatch(
      /^The input of workflow\.saveDraft is invalid at definition\.a\.a/,
    );
  });

  it("a deep call inside a tRPC batch is named by its index", async () => {
    const res = await trpc(
      "run.start,run.start",
      `{"0":{"json":{"workflowId":"${workflowId}"}},"1":{"json":{"workflowId":"${workflowId}","input":{"doc":${deepText(5_000)}}}}}`,
      true,
    );
    expect(res.status).toBe(400);
    expect((await trpcError(res)).message).toMatch(
      /^The input of call 1 \(run\.start\) of the batch is invalid at input\.doc\.a\.a.*: nesting deeper than 64 levels/,
    );
  });

  it.each([5_000, 10_000])("an MCP tool's arguments %i levels deep", async (depth) => {
    const res = await mcpRoute.POST(
      new Request("http://localhost/api/mcp", {
        method: "POST",
        headers: {
          authorization: `Bearer ${token}`,
          accept: "application/json, text/event-stream",
          "content-type": "application/json",
        },
        body: `{"jsonrpc":"2.0","id":1,"method":"tools/call","params":{"name":"run_workflow","arguments":{"workflow":"${workflowId}","input":{"doc":${deepText(depth)}}}}}`,
      }),
    );
    expect(res.status).toBe(400);
    const { error } = (await res.json()) as { error: { code: string; message: string } };
    expect(error.code).toBe("validation");
    expect(error.message).toMatch(/^The tool call is invalid at input\.doc\.a/);
  });
});

describe("/api/trpc body and batch limits", () => {
  it("run.start with a 20 MiB input is refused with 413 before it is buffered", async () => {
    const big = "x".repeat(20 * 1024 * 1024);
    const res = await trpc(
      "run.start",
      `{"json":{"workflowId":"${workflowId}","input":{"doc":{"s":"${big}"}}}}`,
    );
    expect(res.status).toBe(413);
    const error = await trpcError(res);
    expect(error.data.code).toBe("PAYLOAD_TOO_LARGE");
    expect(error.message).toBe(
      "The request body is larger than 1048576 bytes, the limit for run.start",
    );
  });

  it("proposal.create with a 2 MB definition is refused and stores nothing", async () => {
    const definition = {
      schemaVersion: 1,
      name: "Deep",
      steps: [{ id: "s", type: "transform", config: { value: "y".repeat(2_000_000) } }],
    };
    const res = await trpc(
      "proposal.create",
      JSON.stringify({ json: { workflowId, summary: "huge", definition } }),
    );
    expect(res.status).toBe(413);
    expect(await t.db.select().from(proposals).where(eq(proposals.workflowId, workflowId))).toEqual(
      [],
    );
  });

  it("workflow.saveDraft keeps the definition cap of its /api/v1 operation (over 1 MiB is fine)", async () => {
    const definition = {
      schemaVersion: 1,
      name: "Deep",
      inputs: { doc: { type: "object" } },
      steps: [{ id: "s", type: "transform", config: { value: "z".repeat(1_500_000) } }],
    };
    const res = await trpc(
      "workflow.saveDraft",
      JSON.stringify({ json: { workflowId, definition } }),
    );
    expect(res.status, await res.clone().text()).toBe(200);
  });

  it(`a batch of 100 workflow.create calls is refused whole; ${MAX_TRPC_BATCH} still go through`, async () => {
    const batch = (n: number, label: string) =>
      trpc(
        Array.from({ length: n }, () => "workflow.create").join(","),
        JSON.stringify(
          Object.fromEntries(
            Array.from({ length: n }, (_, i) => [i, { json: { name: `${label} ${i}` } }]),
          ),
        ),
        true,
      );
    const count = async () =>
      (await t.db.select().from(workflows).where(eq(workflows.workspaceId, fx.workspaceId))).length;
    const before = await count();
    const refused = await batch(100, "Flood");
    expect(refused.status).toBe(400);
    const error = await trpcError(refused);
    expect(error.data.code).toBe("BAD_REQUEST");
    expect(error.message).toBe(
      "A batch may hold at most 20 calls; this one has 100. Send the calls in smaller batches.",
    );
    expect(await count()).toBe(before);

    const ok = await batch(MAX_TRPC_BATCH, "Fine");
    expect(ok.status, await ok.clone().text()).toBe(200);
    expect(await count()).toBe(before + MAX_TRPC_BATCH);
  });
});
