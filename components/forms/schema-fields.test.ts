import { describe, expect, it } from "vitest";
import { z } from "zod";
import { describeFields, hintOf, labelOf, listText, parseListText, valueAt } from "./schema-fields";

const Example = z.strictObject({
  method: z.enum(["GET", "POST"]).default("GET").describe("HTTP method."),
  url: z.string().min(1).max(8192).describe("URL."),
  prompt: z.string().max(100_000),
  timeoutMs: z.int().min(1).max(300_000).default(30_000),
  ratio: z.number().min(0).max(2),
  allowInitiator: z.boolean().default(false),
  approvers: z.strictObject({
    roles: z.array(z.enum(["viewer", "admin"])).optional(),
    users: z.array(z.string()).optional(),
  }),
  headers: z.record(z.string(), z.string()).default({}),
  body: z.unknown(),
  items: z.union([z.string(), z.array(z.number())]),
  when: z.unknown(),
});

function schema() {
  const json = z.toJSONSchema(Example, { io: "input", unrepresentable: "any" }) as Record<
    string,
    unknown
  >;
  // A $ref to the condition definition, as workflowJsonSchema() writes it.
  (json.properties as Record<string, unknown>).when = { $ref: "#/$defs/condition" };
  return { ...json, $defs: { condition: { anyOf: [] } } };
}

describe("describeFields (JSON Schema from zod → fields)", () => {
  it("maps each property to a field kind, in order, with path, label, range and default", () => {
    const fields = describeFields(schema(), {}, ["config"]);
    expect(fields.map((f) => [f.name, f.kind])).toEqual([
      ["method", "select"],
      ["url", "text"],
      ["prompt", "text"],
      ["timeoutMs", "number"],
      ["ratio", "number"],
      ["allowInitiator", "boolean"],
      ["approvers", "object"],
      ["headers", "json"],
      ["body", "json"],
      ["items", "json"],
      ["when", "condition"],
    ]);
    const [method, url, prompt, timeout, ratio] = fields;
    expect(method).toMatchObject({
      path: ["config", "method"],
      label: "Method",
      options: ["GET", "POST"],
      default: "GET",
      required: false,
      description: "HTTP method.",
    });
    expect(url).toMatchObject({ required: true, multiline: false, maxLength: 8192 });
    expect(prompt).toMatchObject({ multiline: true });
    expect(timeout).toMatchObject({ label: "Timeout (ms)", integer: true, min: 1, max: 300_000 });
    expect(ratio).toMatchObject({ integer: false, min: 0, max: 2 });
    const approvers = fields[6]!;
    expect(approvers.kind === "object" && approvers.fields.map((f) => [f.path, f.kind])).toEqual([
      [["config", "approvers", "roles"], "multiselect"],
      [["config", "approvers", "users"], "list"],
    ]);
  });

  it("leaves out omitted properties", () => {
    expect(describeFields(schema(), { omit: ["body", "when"] }).map((f) => f.name)).not.toContain(
      "body",
    );
  });

  it("labels, hints, values and list text", () => {
    expect(labelOf("maxResponseBytes")).toBe("Max response bytes");
    expect(labelOf("memoryMb")).toBe("Memory (MiB)");
    expect(labelOf("on_timeout")).toBe("On timeout");
    expect(labelOf("url")).toBe("URL");
    expect(
      hintOf({
        name: "q",
        path: ["q"],
        label: "Q",
        required: false,
        kind: "boolean",
        default: true,
        description: "Quick.",
      }),
    ).toBe("Quick. Default: true.");
    expect(valueAt({ a: { b: 1 } }, ["a", "b"])).toBe(1);
    expect(valueAt({ a: 1 }, ["a", "b"])).toBeUndefined();
    expect(listText(["a", "b"])).toBe("a\nb");
    expect(parseListText(" a \n\n b ")).toEqual(["a", "b"]);
    expect(parseListText("  ")).toBeUndefined();
  });
});
