import { describe, expect, it } from "vitest";
import { applyMapping, readJsonPath, writeJsonPath } from "./mapping";
import type { InputSpec } from "@/lib/workflow/definition";
import { sampleDelivery, sampleRequest } from "./samples";

describe("writeJsonPath", () => {
  it("writes what readJsonPath reads back, creating objects and arrays on the way", () => {
    for (const path of ["$", "$.a", "$.a.b", "$.items[2].id", "$[0]", "$.x-y.z_1"]) {
      const root = writeJsonPath({ keep: 1 }, path, "v");
      expect(readJsonPath(path, root), path).toEqual({ found: true, value: "v" });
    }
    expect(writeJsonPath({ a: { keep: 1 } }, "$.a.b", 2)).toEqual({ a: { keep: 1, b: 2 } });
    expect(writeJsonPath({}, "$.__proto__.polluted", 1)).toEqual(
      JSON.parse('{"__proto__":{"polluted":1}}'),
    );
    expect(({} as Record<string, unknown>).polluted).toBeUndefined();
  });
});

describe("sampleDelivery", () => {
  const inputs: Record<string, Partial<InputSpec> & Pick<InputSpec, "type">> = {
    version: { type: "string", required: true },
    count: { type: "number", required: true },
    level: { type: "string", required: true, enum: ["low", "high"] },
    retries: { type: "number", required: true, default: 3 },
    env: { type: "string", default: "staging" },
    token: { type: "string", required: true },
    orphan: { type: "string", required: true },
  };
  const mapping = {
    version: "$.release.version",
    count: "$.items[1].n",
    level: "query.level",
    retries: "header.x-retries",
    env: "$.env",
    token: "header.x-token",
    typo: "$.typo",
  };

  it("fills exactly the sources of required inputs without a default, and notes the rest", () => {
    const s = sampleDelivery({ mapping, input: { token: "static" }, inputs });
    expect(s.body).toEqual({ release: { version: "example version" }, items: [null, { n: 1 }] });
    expect(s.query).toEqual({ level: "low" });
    expect(s.headers).toEqual({});
    expect(s.notes).toEqual([
      "Optional: retries ← header.x-retries (default 3).",
      'Optional: env ← $.env (default "staging").',
      '"typo" is not an input of the workflow: remove its mapping.',
      'Input "orphan" is required but neither mapped nor in the static input: add a mapping.',
    ]);
  });

  it("produces a request the mapping accepts (with the defaults left to the run)", () => {
    const { typo: _typo, ...good } = mapping;
    const s = sampleDelivery({ mapping: good, input: {}, inputs });
    const mapped = applyMapping(
      good,
      {},
      { body: s.body, query: s.query, headers: s.headers },
      inputs,
    );
    expect(mapped.missing).toEqual([]);
    expect(mapped.input).toEqual({
      version: "example version",
      count: 1,
      level: "low",
      token: "example token",
    });
  });

  it("gives every mapped source an example when the workflow's inputs are unknown", () => {
    expect(sampleDelivery({ mapping: { a: "$.a", b: "header.x-b" }, input: {} })).toEqual({
      body: { a: "example a" },
      query: {},
      headers: { "x-b": "example b" },
      notes: [],
    });
  });
});

describe("sampleDelivery for header matches, filters and repository refs", () => {
  it("sends the required headers and a ref at the repository source, and notes a filter", () => {
    const sample = sampleDelivery({
      mapping: {},
      input: {},
      requireHeaders: { "X-GitHub-Event": "push" },
      repositoryRef: "$.after",
      hasFilter: true,
    });
    expect(sample).toEqual({
      body: { after: "main" },
      query: {},
      headers: { "X-GitHub-Event": "push" },
      notes: ["The webhook's filter may skip this sample (answered 200 with the reason)."],
    });
  });
});

describe("sampleRequest", () => {
  const verification = {
    preset: "none" as const,
    header: "X-Signature",
    prefix: "sha256=",
    encoding: "hex" as const,
    toleranceSeconds: 300,
  };
  const inputs = { id: { type: "string" as const, required: true } };

  it("puts query values on the URL and header values on -H lines", () => {
    const script = sampleRequest({
      url: "http://localhost/api/hooks/x",
      config: {
        method: "POST",
        verification,
        idHeader: "Idempotency-Key",
        mapping: { id: "query.order-id" },
        input: {},
      },
      inputs,
    });
    expect(script).toContain("URL='http://localhost/api/hooks/x?order-id=example+id'");
    const headers = sampleRequest({
      url: "http://localhost/api/hooks/x",
      config: {
        method: "POST",
        verification,
        idHeader: "Idempotency-Key",
        mapping: { id: "header.x-order" },
      },
      inputs,
    });
    expect(headers).toContain("-H 'x-order: example id'");
  });

  it("says when a GET webhook's mapping needs a body it cannot have", () => {
    const script = sampleRequest({
      url: "http://localhost/api/hooks/x",
      config: { method: "GET", verification, idHeader: "Idempotency-Key", mapping: { id: "$.id" } },
      inputs,
    });
    expect(script).toContain("# A GET request has no body");
    expect(script).not.toContain("--data");
  });
});
