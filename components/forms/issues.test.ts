import { describe, expect, it } from "vitest";
import { z } from "zod";
import { validateDefinition } from "@/lib/workflow";
import { fieldKey, FORM_KEY, issuesOf, mapIssues, relativePath } from "./issues";
import { jsonText, parseJsonText } from "./json-text";
import { issueResolver, toFieldErrors } from "./resolver";

describe("mapIssues", () => {
  it("keys issues by dotted path, first message per field, empty path = the form", () => {
    const { byField, unplaced } = mapIssues([
      { path: ["a", "b", 0], message: "first" },
      { path: ["a", "b", 0], message: "dropped" },
      { path: [], message: "whole form" },
    ]);
    expect(byField).toEqual({ "a.b.0": "first", [FORM_KEY]: "whole form" });
    expect(unplaced).toEqual([]);
  });

  it("reads zod issues, Standard Schema { key } segments and issues without a path", () => {
    const r = z.object({ n: z.number().min(3) }).safeParse({ n: 1 });
    expect(r.success).toBe(false);
    if (!r.success) expect(Object.keys(mapIssues(r.error.issues).byField)).toEqual(["n"]);
    expect(mapIssues([{ path: [{ key: "x" }, { key: 2 }], message: "m" }]).byField).toEqual({
      "x.2": "m",
    });
    expect(mapIssues([{ message: "no path" }]).byField).toEqual({ _form: "no path" });
  });

  it("makes paths relative to the first matching prefix and leaves out the rest", () => {
    const within = [["config"], []] as const;
    const out = mapIssues(
      [
        { path: ["config", "cron"], message: "server" },
        { path: ["timezone"], message: "client" },
      ],
      { within },
    );
    expect(out.byField).toEqual({ cron: "server", timezone: "client" });
    const step = mapIssues(
      [
        { path: ["steps", 2, "config", "url"], message: "mine" },
        { path: ["steps", 3, "config", "url"], message: "another step" },
      ],
      { within: [["steps", 2]] },
    );
    expect(step.byField).toEqual({ "config.url": "mine" });
  });

  it("folds deeper paths onto the rendered field; unknown fields are unplaced", () => {
    const out = mapIssues(
      [
        { path: ["mapping", "orderId"], message: "bad source" },
        { path: ["verification", "header"], message: "bad header" },
        { path: ["verification"], message: "refinement on the group" },
        { path: [], message: "whole form" },
      ],
      { fields: ["mapping", "verification.header"] },
    );
    expect(out.byField).toEqual({ mapping: "bad source", "verification.header": "bad header" });
    expect(out.unplaced).toEqual([
      { key: "verification", message: "refinement on the group" },
      { key: "_form", message: "whole form" },
    ]);
  });

  it("renames aliased paths (a value edited under another name)", () => {
    const out = mapIssues([{ path: ["config", "maxBodyBytes"], message: "too big" }], {
      within: [["config"]],
      fields: ["maxBodyKb"],
      alias: { maxBodyBytes: "maxBodyKb" },
    });
    expect(out.byField).toEqual({ maxBodyKb: "too big" });
  });

  it("maps the workflow validator's issues onto one step's fields", () => {
    const result = validateDefinition({
      schemaVersion: 1,
      name: "x",
      steps: [
        { id: "a", type: "transform", config: { value: 1 } },
        { id: "b", type: "http", config: { url: "nope" }, retry: { maxAttempts: 40 } },
      ],
    });
    const out = mapIssues(result.issues, { within: [["steps", 1]] });
    expect(Object.keys(out.byField).sort()).toEqual(["config.url", "retry.maxAttempts"]);
  });

  it("issuesOf reads the issues of a tRPC error shape, or none", () => {
    expect(issuesOf({ data: { issues: [{ path: ["x"], message: "m" }] } })).toHaveLength(1);
    expect(issuesOf(new Error("plain"))).toEqual([]);
    expect(issuesOf(null)).toEqual([]);
  });

  it("relativePath / fieldKey", () => {
    expect(relativePath(["steps", 0, "when"], [["steps", 0]])).toEqual(["when"]);
    expect(relativePath(["edges", 0], [["steps", 0]])).toBeUndefined();
    expect(fieldKey([])).toBe(FORM_KEY);
    expect(fieldKey(["a", 0])).toBe("a.0");
  });
});

describe("react-hook-form glue", () => {
  it("toFieldErrors nests field keys and puts unplaced issues on root", () => {
    const errors = toFieldErrors({
      byField: { "verification.header": "bad", name: "empty" },
      unplaced: [{ key: "x", message: "elsewhere" }],
    });
    expect(errors).toEqual({
      verification: { header: { type: "issue", message: "bad" } },
      name: { type: "issue", message: "empty" },
      root: { type: "issue", message: "elsewhere", types: { x: "elsewhere" } },
    });
  });

  it("issueResolver returns the transformed values, or errors placed by the adapter", async () => {
    const schema = z
      .object({ kb: z.number(), name: z.string().min(1, "Give it a name") })
      .transform((v) => ({ bytes: v.kb * 1024, name: v.name }))
      .pipe(z.object({ bytes: z.number().max(2048, "too big"), name: z.string() }));
    const resolve = issueResolver(schema, { alias: { bytes: "kb" } });
    const opts = { fields: {}, shouldUseNativeValidation: false };
    expect(await resolve({ kb: 1, name: "a" }, undefined, opts)).toEqual({
      values: { bytes: 1024, name: "a" },
      errors: {},
    });
    const bad = await resolve({ kb: 4, name: "a" }, undefined, opts);
    expect(bad.errors).toEqual({ kb: { type: "issue", message: "too big" } });
  });
});

describe("JSON text", () => {
  it("blank is undefined, JSON parses, plain text gets a hint about quotes", () => {
    expect(parseJsonText("  ")).toEqual({ ok: true, value: undefined });
    expect(parseJsonText('{"a": [1, true, null]}')).toEqual({
      ok: true,
      value: { a: [1, true, null] },
    });
    const text = parseJsonText("hello {{ input.x }}");
    expect(text.ok).toBe(false);
    if (!text.ok) expect(text.error).toMatch(/needs quotes/);
    const broken = parseJsonText('{"a": ');
    expect(broken.ok).toBe(false);
    if (!broken.ok) expect(broken.error).toMatch(/^Not valid JSON/);
    expect(jsonText(undefined)).toBe("");
    expect(jsonText({ a: 1 })).toBe('{\n  "a": 1\n}');
  });
});
