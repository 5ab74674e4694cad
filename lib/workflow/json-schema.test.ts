import { describe, expect, it } from "vitest";
import { STEP_TYPES } from "./catalog";
import { WORKFLOW_SCHEMA_ID, workflowJsonSchema } from "./json-schema";

type Json = Record<string, unknown>;
const schema = workflowJsonSchema() as Json;
const defs = schema.$defs as Record<string, Json>;

function collect(value: unknown, key: string, out: unknown[] = []): unknown[] {
  if (Array.isArray(value)) value.forEach((v) => collect(v, key, out));
  else if (value && typeof value === "object") {
    for (const [k, v] of Object.entries(value)) {
      if (k === key) out.push(v);
      collect(v, key, out);
    }
  }
  return out;
}

describe("workflowJsonSchema", () => {
  it("is plain JSON (survives a JSON round trip unchanged)", () => {
    expect(JSON.parse(JSON.stringify(schema))).toEqual(schema);
    expect(schema.$id).toBe(WORKFLOW_SCHEMA_ID);
    expect(schema.$schema).toBe("https://json-schema.org/draft/2020-12/schema");
  });

  it("describes the top level strictly", () => {
    expect(schema.type).toBe("object");
    expect(schema.additionalProperties).toBe(false);
    expect(schema.required).toEqual(["schemaVersion", "name", "steps"]);
    expect(Object.keys(schema.properties as Json)).toEqual([
      "schemaVersion",
      "name",
      "description",
      "inputs",
      "variables",
      "constraints",
      "timezone",
      "repository",
      "steps",
      "edges",
      "output",
      "layout",
    ]);
  });

  it("has one if/then clause per step type with that type's config", () => {
    const step = defs.step!;
    expect((step.properties as Json).type).toMatchObject({ enum: [...STEP_TYPES] });
    const clauses = step.allOf as Array<{
      if: { properties: { type: { const: string } } };
      then: { properties: { config: Json } };
    }>;
    expect(clauses.map((c) => c.if.properties.type.const)).toEqual([...STEP_TYPES]);
    const http = clauses.find((c) => c.if.properties.type.const === "http")!.then.properties.config;
    expect(http.required).toEqual(["url"]);
    expect(Object.keys(http.properties as Json)).toEqual([
      "method",
      "url",
      "headers",
      "query",
      "body",
      "timeoutMs",
      "allowedDomains",
      "maxResponseBytes",
    ]);
    expect(((http.properties as Json).timeoutMs as Json).description).toMatch(
      /default 30000, max 300000/,
    );
    expect(((http.properties as Json).method as Json).default).toBe("GET");
  });

  it("documents fields for hover docs", () => {
    const constraints = (schema.properties as Json).constraints as Json;
    for (const field of Object.values(constraints.properties as Record<string, Json>))
      expect(field.description).toBeTruthy();
    const descriptions = collect(schema, "description");
    expect(descriptions.length).toBeGreaterThan(100);
  });

  it("every $ref resolves and loop bodies recurse into the step schema", () => {
    const refs = collect(schema, "$ref") as string[];
    expect(refs.length).toBeGreaterThan(0);
    for (const ref of refs) {
      expect(ref).toMatch(/^#\/\$defs\//);
      expect(defs[ref.slice("#/$defs/".length)], ref).toBeDefined();
    }
    expect(refs).toContain("#/$defs/step");
    expect(refs).toContain("#/$defs/condition");
  });

  it("describes conditions structurally", () => {
    const condition = defs.condition!;
    const leaf = (condition.anyOf as Json[])[0]!;
    expect(Object.keys(leaf.properties as Json)).toEqual([
      "ref",
      "eq",
      "neq",
      "gt",
      "gte",
      "lt",
      "lte",
      "in",
      "contains",
      "exists",
      "matches",
    ]);
  });

  it("is built once", () => {
    expect(workflowJsonSchema()).toBe(schema);
  });
});
