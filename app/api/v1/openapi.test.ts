/**
 * The OpenAPI document and the route files agree: every implemented route method is documented,
 * every documented operation has a route file exporting that method, and each endpoint() handler
 * is built from the very operation documented at its path.
 */
import { describe, expect, it } from "vitest";
import { openApiDocument } from "@/server/http/openapi";
import { operationFor } from "@/server/http/endpoint";
import { OPERATIONS } from "@/server/http/operations";
import { discoverApiRoutes } from "@/server/http/testing";

const METHODS = ["get", "post", "put", "patch", "delete"] as const;

function documented(): string[] {
  const doc = openApiDocument();
  const out: string[] = [];
  for (const [p, item] of Object.entries(doc.paths ?? {}))
    for (const m of METHODS) if (item?.[m]) out.push(`${m.toUpperCase()} ${p}`);
  return out.sort();
}

describe("OpenAPI 3.1 document", () => {
  it("is 3.1 with bearer auth and the error envelope", () => {
    const doc = openApiDocument();
    expect(doc.openapi).toBe("3.1.0");
    expect(doc.components?.securitySchemes?.bearerAuth).toMatchObject({ scheme: "bearer" });
    expect(doc.components?.schemas?.ErrorEnvelope).toBeDefined();
    expect(JSON.parse(JSON.stringify(doc))).toEqual(doc);
  });

  it("documents exactly the implemented route methods", async () => {
    const routes = (await discoverApiRoutes()).map((r) => `${r.method} ${r.openApiPath}`).sort();
    expect(documented()).toEqual(routes);
  });

  it("has unique operation ids and each endpoint() handler uses its documented operation", async () => {
    const ids = OPERATIONS.map((o) => o.operationId);
    expect(new Set(ids).size).toBe(ids.length);
    for (const r of await discoverApiRoutes()) {
      const op = operationFor(r.handler);
      // The proposal routes predate endpoint() (documented from the same contracts).
      if (r.path.startsWith("/api/v1/proposals/")) continue;
      expect(op, `${r.method} ${r.path} is not built with endpoint()`).toBeDefined();
      expect(`${op!.method} ${op!.path}`).toBe(`${r.method} ${r.openApiPath}`);
    }
  });

  it("describes inputs from the zod contracts (path, query, body) and public operations", () => {
    const doc = openApiDocument();
    const list = doc.paths!["/workflows"]!.get!;
    expect(list.parameters?.map((p) => ("name" in p ? p.name : ""))).toEqual(
      expect.arrayContaining(["search", "tag", "enabled", "status", "limit", "cursor"]),
    );
    const create = doc.paths!["/workflows"]!.post!;
    expect(JSON.stringify(create.requestBody)).toContain('"name"');
    expect(Object.keys(create.responses!)).toEqual(
      expect.arrayContaining(["201", "400", "401", "403"]),
    );
    expect(doc.paths!["/openapi.json"]!.get!.security).toEqual([]);
    const draft = doc.paths!["/workflows/{id}/draft"]!.put!;
    expect(Object.keys(draft.responses!)).toEqual(expect.arrayContaining(["404", "409", "413"]));
  });
});
