/**
 * GET /api/v1/audit over its route handler: filters and paging as JSON matching the documented
 * schema, the NDJSON export (by `format=ndjson` and by Accept), refusals still as JSON.
 */
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { setProcessDb } from "@/db";
import { createTestDb, type TestDb } from "@/db/testing";
import { listAuditOp } from "@/server/http/operations/audit";
import { createApiToken } from "@/server/services/api-tokens/create-api-token";
import { createSecret } from "@/server/services/secrets/create-secret";
import { createWorkspaceFixture, type WorkspaceFixture } from "@/server/testing/harness";
import * as workflowsRoute from "@/app/api/v1/workflows/route";
import { GET } from "./route";

let t: TestDb;
let fx: WorkspaceFixture;
let admin: string;
let editor: string;
const VALUE = "audit-api-secret-value-987";

beforeAll(async () => {
  t = await createTestDb("auditapi");
  setProcessDb(t);
  fx = await createWorkspaceFixture(t.db, "AuditApi");
  for (const name of ["ONE", "TWO", "THREE"])
    await createSecret({ ctx: fx.ctx("admin"), input: { name, value: VALUE } });
  admin = (await createApiToken({ ctx: fx.ctx("owner"), input: { name: "a", role: "admin" } }))
    .token;
  editor = (await createApiToken({ ctx: fx.ctx("owner"), input: { name: "e", role: "editor" } }))
    .token;
});
afterAll(async () => {
  await t?.close();
});

function get(query: string, token: string, headers: Record<string, string> = {}) {
  return GET(
    new Request(`http://localhost/api/v1/audit${query}`, {
      headers: { authorization: `Bearer ${token}`, ...headers },
    }),
    { params: Promise.resolve({}) },
  );
}

describe("GET /api/v1/audit", () => {
  it("pages the filtered entries as documented JSON", async () => {
    const first = await get("?action=secret.created&limit=2", admin);
    expect(first.status).toBe(200);
    const body = await first.json();
    expect(listAuditOp.responses[200]!.schema!.safeParse(body).error?.issues ?? []).toEqual([]);
    expect(body.items.map((e: { targetId: string }) => e.targetId)).toEqual(["THREE", "TWO"]);
    const rest = await (
      await get(
        `?action=secret.created&limit=2&cursor=${encodeURIComponent(body.nextCursor)}`,
        admin,
      )
    ).json();
    expect(rest).toMatchObject({ items: [{ targetId: "ONE" }], nextCursor: null });
  });

  it("exports every matching entry as NDJSON, by query or by Accept", async () => {
    for (const [query, headers] of [
      ["?action=secret.*&format=ndjson", {}],
      ["?action=secret.*", { accept: "application/x-ndjson" }],
    ] as const) {
      const res = await get(query, admin, headers);
      expect(res.status).toBe(200);
      expect(res.headers.get("content-type")).toMatch(/^application\/x-ndjson/);
      const text = await res.text();
      expect(text).not.toContain(VALUE);
      const lines = text
        .trimEnd()
        .split("\n")
        .map((l) => JSON.parse(l));
      expect(lines.map((e) => e.targetId)).toEqual(["THREE", "TWO", "ONE"]);
      expect(lines[0]).toMatchObject({ action: "secret.created", actorType: "user" });
    }
  });

  it("says where each change came from: the request's client address and user agent", async () => {
    const created = await workflowsRoute.POST(
      new Request("http://localhost/api/v1/workflows", {
        method: "POST",
        headers: {
          authorization: `Bearer ${editor}`,
          "content-type": "application/json",
          // A client-written entry, then the one Next's server (or a proxy) appended.
          "x-forwarded-for": "10.9.9.9, ::ffff:192.0.2.44",
          "user-agent": "sluice-cli/1.2 (audit test)",
        },
        body: JSON.stringify({ name: "From where" }),
      }),
      { params: Promise.resolve({}) },
    );
    expect(created.status).toBe(201);
    const body = await (await get("?action=workflow.created", admin)).json();
    expect(listAuditOp.responses[200]!.schema!.safeParse(body).error?.issues ?? []).toEqual([]);
    expect(body.items[0]).toMatchObject({
      actorType: "token",
      clientAddress: "192.0.2.44",
      userAgent: "sluice-cli/1.2 (audit test)",
    });
    const line = JSON.parse(
      (await (await get("?action=workflow.created&format=ndjson", admin)).text()).split("\n")[0]!,
    );
    expect(line).toMatchObject({
      clientAddress: "192.0.2.44",
      userAgent: "sluice-cli/1.2 (audit test)",
    });
    // Rows written outside a request (fixtures here) say so with nulls.
    const secrets = await (await get("?action=secret.created&limit=1", admin)).json();
    expect(secrets.items[0]).toMatchObject({ clientAddress: null, userAgent: null });
  });

  it("refuses an editor token and bad filters with JSON errors, also when NDJSON is asked for", async () => {
    const refused = await get("?format=ndjson", editor);
    expect(refused.status).toBe(403);
    expect((await refused.json()).error.code).toBe("forbidden");
    const bad = await get("?from=yesterday", admin, { accept: "application/x-ndjson" });
    expect(bad.status).toBe(400);
    expect(JSON.stringify(await bad.json())).toContain("from");
  });
});
