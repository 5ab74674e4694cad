import { describe, expect, it } from "vitest";
import {
  applyDefinitionPatch,
  formatPointer,
  JsonPatchOperation,
  parsePointer,
} from "./json-patch";

const base = () => ({
  schemaVersion: 1,
  name: "A",
  steps: [
    { id: "fetch", type: "http", config: { url: "https://api.example.com/a" } },
    { id: "shape", type: "transform", config: { value: "{{ steps.fetch.output.data }}" } },
  ],
});

function ok(patch: unknown, doc: unknown = base()): unknown {
  const result = applyDefinitionPatch(doc, patch);
  if (!result.ok) throw new Error(result.error.message);
  return result.definition;
}

function failure(patch: unknown, doc: unknown = base()) {
  const result = applyDefinitionPatch(doc, patch);
  if (result.ok) throw new Error("expected the patch to fail");
  return result.error;
}

describe("applyDefinitionPatch: every op kind", () => {
  it("add to an object and to the end of an array (/steps/-)", () => {
    const step = { id: "done", type: "return", config: { value: 1 } };
    const out = ok([
      { op: "add", path: "/description", value: "new" },
      { op: "add", path: "/steps/-", value: step },
    ]) as ReturnType<typeof base> & { description: string };
    expect(out.description).toBe("new");
    expect(out.steps.map((s) => s.id)).toEqual(["fetch", "shape", "done"]);
  });

  it("add inserts at an index (index = length appends)", () => {
    const out = ok([
      { op: "add", path: "/steps/0", value: { id: "first" } },
      { op: "add", path: "/steps/3", value: { id: "last" } },
    ]) as { steps: Array<{ id: string }> };
    expect(out.steps.map((s) => s.id)).toEqual(["first", "fetch", "shape", "last"]);
  });

  it("remove", () => {
    const out = ok([{ op: "remove", path: "/steps/0" }]) as { steps: Array<{ id: string }> };
    expect(out.steps.map((s) => s.id)).toEqual(["shape"]);
  });

  it("replace, including the whole document with the root pointer", () => {
    const out = ok([
      { op: "replace", path: "/steps/0/config/url", value: "https://b.example/x" },
    ]) as ReturnType<typeof base>;
    expect(out.steps[0]!.config.url).toBe("https://b.example/x");
    expect(ok([{ op: "replace", path: "", value: { name: "B" } }])).toEqual({ name: "B" });
  });

  it("move and copy", () => {
    const moved = ok([{ op: "move", from: "/steps/0", path: "/steps/1" }]) as {
      steps: Array<{ id: string }>;
    };
    expect(moved.steps.map((s) => s.id)).toEqual(["shape", "fetch"]);
    const copied = ok([{ op: "copy", from: "/name", path: "/description" }]);
    expect(copied).toMatchObject({ name: "A", description: "A" });
  });

  it("test passes, and escaped pointer tokens work", () => {
    const doc = { variables: { "a/b": 1, "c~d": 2 } };
    expect(
      ok(
        [
          { op: "test", path: "/variables/a~1b", value: 1 },
          { op: "test", path: "/variables/c~0d", value: 2 },
        ],
        doc,
      ),
    ).toEqual(doc);
    expect(parsePointer("/a~1b/c~0d")).toEqual(["a/b", "c~d"]);
    expect(formatPointer(["a/b", "c~d"])).toBe("/a~1b/c~0d");
  });

  it("never mutates base, and later ops see earlier ones", () => {
    const doc = base();
    const snapshot = structuredClone(doc);
    const out = ok(
      [
        { op: "replace", path: "/name", value: "B" },
        { op: "test", path: "/name", value: "B" },
        { op: "remove", path: "/steps/1/config" },
      ],
      doc,
    );
    expect(doc).toEqual(snapshot);
    expect(out).not.toBe(doc);
    expect((out as { name: string }).name).toBe("B");
  });

  it("an empty patch returns an equal copy", () => {
    const doc = base();
    const out = ok([], doc);
    expect(out).toEqual(doc);
    expect(out).not.toBe(doc);
  });
});

describe("applyDefinitionPatch: errors name the failing operation", () => {
  it("test failure says what was expected and found", () => {
    const error = failure([{ op: "test", path: "/name", value: "B" }]);
    expect(error).toEqual({
      index: 0,
      op: { op: "test", path: "/name", value: "B" },
      message: 'operation 0 (test /name): expected "B", found "A"',
    });
  });

  it("a missing path names the first missing segment", () => {
    const patch = [
      { op: "test", path: "/name", value: "A" },
      { op: "add", path: "/description", value: "x" },
      { op: "remove", path: "/description" },
      { op: "replace", path: "/steps/7/config/url", value: "https://x.example" },
    ];
    const error = failure(patch);
    expect(error.index).toBe(3);
    expect(error.op).toBe(patch[3]);
    expect(error.message).toBe(
      "operation 3 (replace /steps/7/config/url): path /steps/7 does not exist (/steps has 2 items)",
    );
    expect(failure([{ op: "remove", path: "/inputs/version" }]).message).toBe(
      "operation 0 (remove /inputs/version): path /inputs does not exist",
    );
    expect(failure([{ op: "add", path: "/steps/0/config/headers/x/y", value: 1 }]).message).toBe(
      "operation 0 (add /steps/0/config/headers/x/y): path /steps/0/config/headers does not exist",
    );
    expect(failure([{ op: "test", path: "/nope", value: 1 }]).message).toBe(
      "operation 0 (test /nope): path /nope does not exist",
    );
  });

  it("array pointers: out of range add, '-' outside add, non-canonical index", () => {
    expect(failure([{ op: "add", path: "/steps/5", value: {} }]).message).toBe(
      "operation 0 (add /steps/5): path /steps/5 does not exist (/steps has 2 items)",
    );
    expect(failure([{ op: "replace", path: "/steps/-", value: {} }]).message).toBe(
      'operation 0 (replace /steps/-): path /steps/-: "-" (the end of /steps) only works as the last token of an add',
    );
    expect(failure([{ op: "remove", path: "/steps/01" }]).message).toBe(
      'operation 0 (remove /steps/01): path /steps/01: /steps is an array and "01" is not an index',
    );
    expect(failure([{ op: "add", path: "/name/x", value: 1 }]).message).toBe(
      "operation 0 (add /name/x): path /name/x does not exist (/name is a string)",
    );
  });

  it("move/copy: missing from, moving into a child", () => {
    expect(failure([{ op: "copy", from: "/nope", path: "/x" }]).message).toBe(
      "operation 0 (copy /nope → /x): from /nope does not exist",
    );
    expect(failure([{ op: "move", from: "/steps", path: "/steps/0/x" }]).message).toBe(
      "operation 0 (move /steps → /steps/0/x): cannot move /steps into its own child /steps/0/x",
    );
  });

  it("removing the whole document is refused", () => {
    expect(failure([{ op: "remove", path: "" }]).message).toBe(
      'operation 0 (remove ""): the whole definition cannot be removed',
    );
  });
});

describe("applyDefinitionPatch: malformed patches are refused before anything applies", () => {
  it("not an array", () => {
    const error = failure({ op: "add", path: "/x", value: 1 });
    expect(error.index).toBe(-1);
    expect(error.message).toMatch(/^A patch is an array of operations .* got an object\.$/);
  });

  it("an op that is not an object, without path, with an unknown op or key, without value", () => {
    expect(failure(["remove /x"]).message).toBe(
      'operation 0: expected an object such as { "op": "remove", "path": "/steps/2" }, got a string',
    );
    expect(failure([{ op: "test", path: "/name", value: "A" }, { op: "remove" }])).toMatchObject({
      index: 1,
      message:
        'operation 1 (remove): "path" is missing (a JSON Pointer such as "/steps/0/config/url")',
    });
    expect(failure([{ op: "delete", path: "/x" }]).message).toBe(
      'operation 0 (delete /x): unknown op "delete"; use one of add, remove, replace, move, copy, test',
    );
    expect(failure([{ path: "/x" }]).message).toBe(
      'operation 0: "op" is missing; use one of add, remove, replace, move, copy, test',
    );
    expect(failure([{ op: "replace", path: "/name", valu: "B" }]).message).toMatch(
      /^operation 0 \(replace \/name\): unknown key "valu"; .*Did you mean "value"\?$/,
    );
    expect(failure([{ op: "replace", path: "/name" }]).message).toBe(
      'operation 0 (replace /name): "value": A "replace" operation needs "value"',
    );
    expect(failure([{ op: "move", path: "/name" }]).message).toBe(
      'operation 0 (move /name): "from": A "move" operation needs "from"',
    );
    expect(failure([{ op: "add", path: "name", value: 1 }]).message).toMatch(
      /^operation 0 \(add name\): "path": A JSON Pointer such as/,
    );
  });

  it("a malformed op later in the patch stops it before earlier ops run", () => {
    const doc = base();
    const error = failure(
      [
        { op: "replace", path: "/name", value: "B" },
        { op: "nope", path: "/x" },
      ],
      doc,
    );
    expect(error.index).toBe(1);
    expect(doc.name).toBe("A");
  });

  it("prototype keys are refused in path and from", () => {
    expect(failure([{ op: "add", path: "/__proto__/polluted", value: true }]).message).toBe(
      'operation 0 (add /__proto__/polluted): "path": "__proto__" may not appear in a pointer',
    );
    expect(failure([{ op: "copy", from: "/constructor", path: "/x" }]).message).toMatch(
      /"from": "constructor" may not appear/,
    );
    expect(({} as Record<string, unknown>).polluted).toBeUndefined();
    expect(JsonPatchOperation.safeParse({ op: "remove", path: "/a/prototype" }).success).toBe(
      false,
    );
  });
});
