import { describe, expect, it } from "vitest";
import { applyMapping, mapRepositoryRef, readJsonPath } from "./mapping";

describe("trigger input mapping", () => {
  const body = { order: { id: "o-1", lines: [{ sku: "A" }, { sku: "B" }], total: 0, note: null } };

  it("reads JSON paths, array indexes and keeps types", () => {
    expect(readJsonPath("$.order.id", body)).toEqual({ found: true, value: "o-1" });
    expect(readJsonPath("$.order.lines[1].sku", body)).toEqual({ found: true, value: "B" });
    expect(readJsonPath("$.order.total", body)).toEqual({ found: true, value: 0 });
    expect(readJsonPath("$.order.note", body)).toEqual({ found: true, value: null });
    expect(readJsonPath("$", body)).toEqual({ found: true, value: body });
  });

  it("reports absent paths instead of inventing values", () => {
    expect(readJsonPath("$.order.missing", body).found).toBe(false);
    expect(readJsonPath("$.order.lines[5]", body).found).toBe(false);
    expect(readJsonPath("$.order.id.deeper", body).found).toBe(false);
    expect(readJsonPath("$.order.lines.sku", body).found).toBe(false);
    expect(readJsonPath("$.__proto__", body).found).toBe(false);
    expect(readJsonPath("$..x", body).found).toBe(false);
  });

  it("maps body, query and headers over static input and lists what is missing", () => {
    const r = applyMapping(
      {
        orderId: "$.order.id",
        page: "query.page",
        requestId: "header.X-Request-Id",
        gone: "$.nope",
      },
      { env: "prod", orderId: "static" },
      { body, query: { page: "2" }, headers: { "x-request-id": "r-9" } },
    );
    expect(r.input).toEqual({ env: "prod", orderId: "o-1", page: "2", requestId: "r-9" });
    expect(r.missing).toEqual(["gone ← $.nope"]);
  });

  it("lets optional and defaulted inputs go unmapped, so the workflow's default applies", () => {
    const inputs = {
      version: { required: true },
      environment: { required: false, default: "staging" },
      note: {},
      retries: { required: true, default: 3 },
    };
    const mapping = {
      version: "$.version",
      environment: "$.env",
      note: "query.note",
      retries: "header.x-retries",
    };
    const r = applyMapping(mapping, {}, { body: { version: "1.2.3" } }, inputs);
    expect(r).toEqual({ input: { version: "1.2.3" }, missing: [] });
    // A required input with no default is still reported, and so is any input when the
    // declaration is unknown — unless the static input has it.
    expect(applyMapping(mapping, {}, { body: {} }, inputs).missing).toEqual([
      "version ← $.version",
    ]);
    expect(applyMapping(mapping, { version: "0.0.1" }, { body: {} }, inputs)).toEqual({
      input: { version: "0.0.1" },
      missing: [],
    });
    expect(applyMapping({ environment: "$.env" }, {}, { body: {} }).missing).toEqual([
      "environment ← $.env",
    ]);
  });
});

describe("mapRepositoryRef", () => {
  const sha = "0123456789abcdef0123456789abcdef01234567";
  it("reads the ref from the body, a query parameter or a header", () => {
    expect(mapRepositoryRef("$.after", { body: { after: sha } })).toEqual({ ok: true, ref: sha });
    expect(mapRepositoryRef("query.ref", { body: null, query: { ref: "main" } })).toEqual({
      ok: true,
      ref: "main",
    });
    expect(mapRepositoryRef("header.x-ref", { body: null, headers: { "x-ref": "v1" } })).toEqual({
      ok: true,
      ref: "v1",
    });
  });

  it("refuses a missing, non-string or unsafe ref with the reason", () => {
    expect(mapRepositoryRef("$.after", { body: {} })).toEqual({
      ok: false,
      code: "missing",
      reason: "The repository ref is missing from the request (repository ← $.after)",
    });
    expect(mapRepositoryRef("$.after", { body: { after: null } })).toMatchObject({
      code: "missing",
    });
    expect(mapRepositoryRef("$.after", { body: { after: 7 } })).toEqual({
      ok: false,
      code: "invalid",
      reason: "The repository ref at $.after must be a string, got a number",
    });
    expect(mapRepositoryRef("$.after", { body: { after: "--upload-pack=evil" } })).toEqual({
      ok: false,
      code: "invalid",
      reason:
        'The repository ref at $.after is invalid: The ref "--upload-pack=evil" must not start with "-".',
    });
    expect(mapRepositoryRef("$.after", { body: { after: "a..b" } })).toMatchObject({
      code: "invalid",
    });
  });
});
