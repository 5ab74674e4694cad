/**
 * Fuzzing the HTTP surfaces with malformed requests (issue 16, reliability suite): every /api/v1
 * route handler (discovered from disk), the tRPC handler (every procedure of the app router, in
 * the same fetch adapter as app/api/trpc), the webhook receiver and the MCP endpoint are called
 * in-process with wrong types, null/array/scalar bodies, deep nesting, NUL characters, lone
 * surrogates, invalid JSON and UTF-8, wrong content types, unknown and `__proto__` keys — a fixed
 * corpus plus fast-check bodies built from each operation's own field names. No answer may be a
 * 5xx, every JSON answer must parse, and no handler may throw.
 */
import { createHmac } from "node:crypto";
import { fetchRequestHandler } from "@trpc/server/adapters/fetch";
import fc from "fast-check";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { setProcessDb } from "@/db";
import { createTestDb, type TestDb } from "@/db/testing";
import { discoverApiRoutes } from "@/server/http/testing";
import { handleWebhook } from "@/server/http/hooks";
import { OPERATIONS } from "@/server/http/operations";
import { createApiToken } from "@/server/services/api-tokens/create-api-token";
import { createProposal } from "@/server/services/proposals/create-proposal";
import { startRun } from "@/server/services/runs/start-run";
import { createTrigger } from "@/server/services/triggers/create-trigger";
import { createWorkflow } from "@/server/services/workflows/create-workflow";
import { listVersions } from "@/server/services/workflows/list-versions";
import { publishWorkflow } from "@/server/services/workflows/publish-workflow";
import { saveDraft } from "@/server/services/workflows/save-draft";
import { createWorkspaceFixture, type WorkspaceFixture } from "@/server/testing/harness";
import { appRouter } from "@/server/trpc/root";
import * as mcpRoute from "./mcp/route";

type RouteHandler = (
  req: Request,
  ctx: { params: Promise<Record<string, unknown>> },
) => Promise<Response>;

/** Bodies as raw bytes or text, each with the content type it is sent with. */
interface RawBody {
  label: string;
  body: string | Uint8Array;
  contentType?: string;
}

const deep = (n: number) => "[".repeat(n) + "]".repeat(n);
const deepObject = (n: number) => '{"a":'.repeat(n) + "1" + "}".repeat(n);

/** Malformed bodies every surface gets, whatever it expects. */
const CORPUS: RawBody[] = [
  { label: "empty", body: "" },
  { label: "invalid JSON", body: "{nope" },
  { label: "truncated JSON", body: '{"name": "x"' },
  { label: "trailing garbage", body: '{"name":"x"} trailing' },
  { label: "null", body: "null" },
  { label: "array", body: "[1,2,3]" },
  { label: "empty array", body: "[]" },
  { label: "number", body: "42" },
  { label: "huge number", body: "1e999" },
  { label: "string", body: '"hello"' },
  { label: "boolean", body: "true" },
  { label: "empty object", body: "{}" },
  { label: "unknown keys", body: '{"zzz":1,"name":{"nested":[null]}}' },
  { label: "__proto__ key", body: '{"__proto__":{"isAdmin":true},"name":"x"}' },
  { label: "constructor key", body: '{"constructor":{"prototype":{"x":1}}}' },
  { label: "NUL in a value", body: '{"name":"a\\u0000b","definition":{"name":"\\u0000"}}' },
  { label: "NUL in a key", body: '{"na\\u0000me":"x"}' },
  { label: "lone surrogate", body: '{"name":"\\ud800","summary":"x\\udfff"}' },
  { label: "raw NUL byte", body: '{"name":"a\u0000b"}' },
  {
    label: "invalid UTF-8",
    body: new Uint8Array([0x7b, 0x22, 0xff, 0xfe, 0x22, 0x3a, 0x31, 0x7d]),
  },
  { label: "deep arrays (100k)", body: deep(100_000) },
  { label: "deep objects (20k)", body: deepObject(20_000) },
  { label: "deep value under a known key", body: `{"name":"x","definition":${deepObject(5_000)}}` },
  { label: "2 MiB string", body: JSON.stringify({ name: "x".repeat(2 * 1024 * 1024) }) },
  {
    label: "many keys",
    body: JSON.stringify(
      Object.fromEntries(Array.from({ length: 20_000 }, (_, i) => [`k${i}`, i])),
    ),
  },
  { label: "wrong content type", body: '{"name":"x"}', contentType: "text/plain" },
  {
    label: "form body",
    body: "name=x&definition=y",
    contentType: "application/x-www-form-urlencoded",
  },
  {
    label: "multipart body",
    body: '--b\r\ncontent-disposition: form-data; name="name"\r\n\r\nx\r\n--b--\r\n',
    contentType: "multipart/form-data; boundary=b",
  },
  { label: "no content type", body: '{"name":"x"}', contentType: "" },
  {
    label: "bogus content type",
    body: '{"name":"x"}',
    contentType: "application/json; charset=ebcdic",
  },
];

/** Values of every JSON type and the nasty strings, for fields the fast-check bodies fill. */
const junk = fc.oneof(
  fc.jsonValue({ maxDepth: 3 }),
  fc.constantFrom(
    null,
    "",
    "\u0000",
    "\ud800",
    "x".repeat(10_000),
    -1,
    0,
    1e308,
    2 ** 53 + 1,
    [],
    {},
    [null],
    "wf_00000000000000000000000000",
    "../../etc/passwd",
    "{{ steps.x.output }}",
  ),
);

/** Bodies built from the operation's own field names (wrong types on the right keys). */
function generatedBodies(keys: string[], count: number, seed: number): RawBody[] {
  const pool = [...keys, "__proto__", "unknown"];
  return fc
    .sample(fc.dictionary(fc.constantFrom(...pool), junk, { maxKeys: 4, noNullPrototype: true }), {
      numRuns: count,
      seed,
    })
    .map((b, i) => ({ label: `generated #${i}`, body: JSON.stringify(b) }));
}

function shapeKeys(schema: unknown): string[] {
  const shape = (schema as { shape?: Record<string, unknown> } | undefined)?.shape;
  return shape ? Object.keys(shape) : [];
}

/**
 * Fails (with the case named) on a 5xx or a JSON answer that does not parse; soft, so one run
 * lists every failing case.
 */
async function expectNo5xx(what: string, res: Response): Promise<number> {
  const type = res.headers.get("content-type") ?? "";
  let text = "";
  if (type.includes("text/event-stream")) await res.body?.cancel();
  else text = await res.text();
  if (type.includes("json") && text) expect.soft(() => JSON.parse(text), what).not.toThrow();
  expect.soft(res.status, `${what} → ${res.status} ${text.slice(0, 300)}`).toBeLessThan(500);
  return res.status;
}

function request(
  url: string,
  method: string,
  body: RawBody | undefined,
  headers: Record<string, string> = {},
) {
  const h: Record<string, string> = { ...headers };
  const type = body?.contentType ?? "application/json";
  if (body && type) h["content-type"] = type;
  return new Request(url, {
    method,
    headers: h,
    ...(body && method !== "GET" && method !== "HEAD" ? { body: body.body as BodyInit } : {}),
  });
}

let t: TestDb;
let fx: WorkspaceFixture;
let token: string;
const ids: Record<string, string> = {};
const tally = { requests: 0, byStatus: {} as Record<number, number> };
const count = (status: number) => {
  tally.requests++;
  tally.byStatus[status] = (tally.byStatus[status] ?? 0) + 1;
};

beforeAll(async () => {
  t = await createTestDb("httpfuzz");
  setProcessDb(t);
  fx = await createWorkspaceFixture(t.db, "Fuzz");
  const owner = fx.ctx("owner");
  token = (await createApiToken({ ctx: owner, input: { name: "fuzz", role: "owner" } })).token;
  const definition = {
    schemaVersion: 1,
    name: "Fuzzed",
    constraints: { allowSelfModification: true },
    steps: [{ id: "s", type: "transform", config: { value: 1 } }],
  };
  const wf = await createWorkflow({ ctx: owner, input: { name: "Fuzzed" } });
  await saveDraft({ ctx: owner, input: { workflowId: wf.id, definition } });
  await publishWorkflow({ ctx: owner, input: { workflowId: wf.id } });
  ids.workflow = wf.id;
  ids.version = (await listVersions({ ctx: owner, input: { workflowId: wf.id } }))[0]!.id;
  ids.run = (await startRun({ ctx: owner, input: { workflowId: wf.id } })).runId;
  const hook = await createTrigger({
    ctx: owner,
    // A limit the fuzz does not reach: a 429 would stop the bodies before they are parsed.
    input: {
      kind: "webhook",
      workflowId: wf.id,
      name: "Hook",
      config: { rateLimit: { perMinute: 60_000, burst: 10_000 } },
    },
  });
  ids.trigger = hook.trigger.id;
  ids.hookPath = hook.trigger.path!;
  ids.hookSecret = hook.secret!;
  const editor = await fx.addMember("editor");
  ids.proposal = (
    await createProposal({
      ctx: { ...fx.ctx("editor"), actor: { type: "user", userId: editor } },
      input: {
        baseHash: "current",
        workflowId: wf.id,
        summary: "bump",
        definition: {
          ...definition,
          steps: [{ id: "s", type: "transform", config: { value: 2 } }],
        },
      },
    })
  ).id;
});
afterAll(async () => {
  await t?.close();
  console.info(
    `http fuzz: ${tally.requests} requests, by status ${JSON.stringify(tally.byStatus)}`,
  );
});

/** Real ids for a route's params (so the body is parsed past the lookup), and junk ones. */
function paramSets(routePath: string): Record<string, string>[] {
  const names = [...routePath.matchAll(/\[(\w+)\]/g)].map((m) => m[1]!);
  if (names.length === 0) return [{}];
  const real: Record<string, string> = {};
  for (const n of names) {
    if (n === "versionId") real[n] = ids.version!;
    else if (routePath.startsWith("/api/v1/workflows")) real[n] = ids.workflow!;
    else if (routePath.startsWith("/api/v1/runs")) real[n] = ids.run!;
    else if (routePath.startsWith("/api/v1/triggers")) real[n] = ids.trigger!;
    else if (routePath.startsWith("/api/v1/proposals")) real[n] = ids.proposal!;
  }
  const junkIds = ["", "\u0000", "\ud800", "x".repeat(5_000), "../..", "%00", "wf_"];
  return [real, ...junkIds.map((j) => Object.fromEntries(names.map((n) => [n, j])))];
}

/** encodeURIComponent, except that a lone surrogate (which it refuses) goes into the URL as is. */
const encodeLoosely = (s: string) => {
  try {
    return encodeURIComponent(s);
  } catch {
    return s;
  }
};

const JUNK_QUERIES = [
  "",
  "?limit=abc&cursor=%00",
  "?limit=-1&status=nope&before=yesterday",
  "?limit=1e309&cursor=%ED%A0%80",
  "?limit=5&limit=6&status[]=x",
  "?cursor=" + "A".repeat(10_000),
  "?from=%FF%FE&to=&versionA=%00&versionB=x",
];

describe("HTTP surfaces under malformed input: never a 5xx", () => {
  it("every /api/v1 route", async () => {
    const routes = (await discoverApiRoutes()).sort(
      // Deleting routes last, so the others still find the real ids.
      (a, b) => Number(a.method === "DELETE") - Number(b.method === "DELETE"),
    );
    expect(routes.length).toBeGreaterThan(30);
    let seed = 1;
    for (const route of routes) {
      const op = OPERATIONS.find((o) => o.method === route.method && o.path === route.openApiPath);
      const keys = [...shapeKeys(op?.body), ...shapeKeys(op?.query)];
      const bodies =
        route.method === "GET" ? [undefined] : [...CORPUS, ...generatedBodies(keys, 12, seed++)];
      for (const [i, params] of paramSets(route.path).entries()) {
        const url = `http://localhost${route.path.replace(/\[(\w+)\]/g, (_, n: string) => encodeLoosely(params[n] ?? ""))}`;
        // Every body and query with the real ids; junk ids with a few (refused before the body).
        const queries = route.method === "GET" ? JUNK_QUERIES : ["", JUNK_QUERIES[2]!];
        for (const query of i === 0 ? queries : queries.slice(0, 2)) {
          for (const body of i === 0 ? bodies : bodies.slice(0, 2)) {
            const what = `${route.method} ${route.path} ${JSON.stringify(params).slice(0, 60)} ${query.slice(0, 40)} [${body?.label ?? "no body"}]`;
            const res = await (route.handler as RouteHandler)(
              request(url + query, route.method, body, { authorization: `Bearer ${token}` }),
              { params: Promise.resolve(params) },
            );
            count(await expectNo5xx(what, res));
          }
        }
      }
    }
  }, 600_000);

  it("every tRPC procedure", async () => {
    const procedures = Object.entries(
      // Flat at runtime ("workflow.create" → procedure), nested in the types.
      appRouter._def.procedures as unknown as Record<string, { _def: { type: string } }>,
    );
    expect(procedures.length).toBeGreaterThan(30);
    const handle = (req: Request) =>
      fetchRequestHandler({
        endpoint: "/api/trpc",
        req,
        router: appRouter,
        createContext: async () => ({ svc: fx.ctx("owner") }),
      });
    let seed = 1000;
    for (const [path, proc] of procedures) {
      if (proc._def.type === "subscription") continue;
      const bodies = [
        ...CORPUS,
        ...generatedBodies(
          ["workflowId", "runId", "id", "name", "definition", "input", "json"],
          8,
          seed++,
        ),
      ];
      for (const body of bodies) {
        const what = `tRPC ${proc._def.type} ${path} [${body.label}]`;
        let req: Request;
        if (proc._def.type === "query") {
          const text =
            typeof body.body === "string" ? body.body : new TextDecoder().decode(body.body);
          // Queries carry their input in the URL; the 2 MiB and 100k-deep cases too (no URL cap here).
          req = new Request(`http://localhost/api/trpc/${path}?input=${encodeURIComponent(text)}`);
        } else {
          // superjson's envelope around the junk, and the junk bare (not superjson at all).
          req = request(`http://localhost/api/trpc/${path}`, "POST", body);
        }
        count(await expectNo5xx(what, await handle(req)));
        if (
          proc._def.type === "mutation" &&
          typeof body.body === "string" &&
          body.body.length < 100_000
        ) {
          const wrapped = { ...body, body: `{"json":${body.body || "null"}}` };
          const res = await handle(request(`http://localhost/api/trpc/${path}`, "POST", wrapped));
          count(await expectNo5xx(`${what} (superjson envelope)`, res));
        }
      }
    }
  }, 600_000);

  it("the webhook receiver (signed and unsigned, every method)", async () => {
    const send = (path: string, method: string, body: RawBody, headers: Record<string, string>) =>
      handleWebhook(
        request(`http://localhost/api/hooks/${path}?x=%00&y=%FF`, method, body, headers),
        {
          params: Promise.resolve({ path: path.split("/") }),
        },
      );
    const bodies = [...CORPUS, ...generatedBodies(["order", "id", "event", "data"], 30, 7)];
    for (const body of bodies) {
      const bytes = typeof body.body === "string" ? Buffer.from(body.body) : Buffer.from(body.body);
      const signature = `sha256=${createHmac("sha256", ids.hookSecret!).update(bytes).digest("hex")}`;
      const cases: [string, string, Record<string, string>][] = [
        ...["POST", "PUT", "GET", "DELETE"].map((m): [string, string, Record<string, string>] => [
          m,
          ids.hookPath!,
          { "x-signature": signature },
        ]),
        ["POST", ids.hookPath!, { "x-signature": "sha256=zz\u00ff" }],
        ["POST", ids.hookPath!, {}],
        ["POST", "nope/\u0000/x", {}],
        ["POST", "\ud800", { "x-signature": signature }],
      ];
      for (const [method, path, headers] of cases) {
        const res = await send(path, method, body, headers);
        count(await expectNo5xx(`hook ${method} ${path.slice(0, 20)} [${body.label}]`, res));
      }
    }
  }, 600_000);

  it("the MCP endpoint (JSON-RPC framing and every tool's arguments)", async () => {
    const post = (body: RawBody, auth = true) =>
      mcpRoute.POST(
        request("http://localhost/api/mcp", "POST", body, {
          accept: "application/json, text/event-stream",
          ...(auth ? { authorization: `Bearer ${token}` } : {}),
        }),
      );
    for (const body of CORPUS) {
      count(await expectNo5xx(`mcp [${body.label}]`, await post(body)));
      count(await expectNo5xx(`mcp unauthenticated [${body.label}]`, await post(body, false)));
    }
    const rpc = (method: string, params: unknown, id: unknown = 1) =>
      JSON.stringify({ jsonrpc: "2.0", id, method, params });
    const framing: RawBody[] = [
      { label: "wrong jsonrpc", body: '{"jsonrpc":"1.0","id":1,"method":"tools/list"}' },
      { label: "no method", body: '{"jsonrpc":"2.0","id":1}' },
      { label: "unknown method", body: rpc("nope/nope", {}) },
      { label: "object id", body: rpc("tools/list", {}, { x: 1 }) },
      { label: "batch", body: `[${rpc("tools/list", {})},${rpc("tools/list", {}, 2)}]` },
      { label: "empty batch", body: "[]" },
      { label: "params array", body: rpc("tools/call", [1, 2]) },
      { label: "tool name junk", body: rpc("tools/call", { name: "\u0000", arguments: {} }) },
      {
        label: "arguments null",
        body: rpc("tools/call", { name: "list_workflows", arguments: null }),
      },
      { label: "resource junk", body: rpc("resources/read", { uri: "sluice://\ud800/%00" }) },
      { label: "resource NUL id", body: rpc("resources/read", { uri: "sluice://runs/%00" }) },
      {
        label: "resource raw NUL",
        body: rpc("resources/read", { uri: "sluice://workflows/a\u0000" }),
      },
    ];
    for (const body of framing) count(await expectNo5xx(`mcp [${body.label}]`, await post(body)));

    const listed = await post({ label: "tools/list", body: rpc("tools/list", {}) });
    const tools = (
      (await listed.json()) as {
        result: {
          tools: { name: string; inputSchema: { properties?: Record<string, unknown> } }[];
        };
      }
    ).result.tools;
    expect(tools.length).toBeGreaterThan(5);
    let seed = 2000;
    let internal = 0;
    for (const tool of tools) {
      const keys = Object.keys(tool.inputSchema.properties ?? {});
      const args = [
        ...generatedBodies(keys, 15, seed++).map((b) => JSON.parse(b.body as string) as unknown),
        null,
        [],
        "x",
        { [keys[0] ?? "x"]: "\u0000" },
        { [keys[0] ?? "x"]: "\ud800" },
        Object.fromEntries(keys.map((k) => [k, ids.workflow])),
      ];
      for (const a of args) {
        const res = await post({
          label: tool.name,
          body: rpc("tools/call", { name: tool.name, arguments: a }),
        });
        const text = await res.clone().text();
        count(await expectNo5xx(`mcp tool ${tool.name} ${JSON.stringify(a).slice(0, 80)}`, res));
        // A tool that failed on something unexpected answers "internal: …" — the MCP 500.
        if (/"code":"internal"/.test(text)) {
          internal++;
          expect
            .soft(text, `mcp tool ${tool.name} ${JSON.stringify(a).slice(0, 120)}`)
            .not.toMatch(/"code":"internal"/);
        }
      }
    }
    expect(internal).toBe(0);
  }, 600_000);
});
