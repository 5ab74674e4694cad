import { describe, expect, it } from "vitest";
import { tryRenameStep } from "./connect";
import { validateDefinition } from "@/lib/workflow";
import {
  editStep,
  edgeInfo,
  freshKey,
  getAt,
  renameKey,
  setAt,
  setEdgeFailure,
  setEdgePort,
  stepPath,
} from "./fields";

/** Every path whose value differs between two JSON documents (keys in order). */
function changedPaths(a: unknown, b: unknown, at: string[] = []): string[] {
  if (JSON.stringify(a) === JSON.stringify(b)) return [];
  const isObj = (v: unknown) => typeof v === "object" && v !== null;
  if (!isObj(a) || !isObj(b) || Array.isArray(a) !== Array.isArray(b)) return [at.join(".")];
  const ka = Object.keys(a as object);
  const kb = Object.keys(b as object);
  const shared = ka.filter((k) => kb.includes(k));
  if (JSON.stringify(shared) !== JSON.stringify(kb.filter((k) => ka.includes(k))))
    return [`${at.join(".")} (key order)`];
  return [
    ...ka.filter((k) => !kb.includes(k)).map((k) => [...at, k].join(".")),
    ...kb.filter((k) => !ka.includes(k)).map((k) => [...at, k].join(".")),
    ...shared.flatMap((k) =>
      changedPaths((a as Record<string, unknown>)[k], (b as Record<string, unknown>)[k], [
        ...at,
        k,
      ]),
    ),
  ];
}

//   fetch ──▶ check ──true──▶ notify
//                    (implicit array order; loop "each" holds body steps item → save)
const def = () => ({
  schemaVersion: 1,
  name: "Orders",
  inputs: { region: { type: "string", default: "eu" } },
  steps: [
    {
      id: "fetch",
      type: "http",
      config: { url: "https://api.example.com/{{ input.region }}", method: "GET" },
    },
    {
      id: "check",
      type: "condition",
      config: { condition: { ref: "steps.fetch.output.data.ok" } },
    },
    {
      id: "each",
      type: "loop",
      config: {
        items: "{{ steps.fetch.output.data.items }}",
        body: {
          steps: [
            { id: "item", type: "transform", config: { value: "{{ loop.item }}" } },
            {
              id: "save",
              type: "http",
              config: { url: "https://x.example/{{ steps.item.output.data }}" },
            },
          ],
        },
      },
    },
  ],
  output: "{{ steps.fetch.output.data }}",
});

describe("setAt / editStep: one field changes, everything else stays as written", () => {
  it("sets a field in place (key order kept) and appends a new one", () => {
    const d = def();
    const next = editStep(d, "fetch", ["config", "method"], "POST");
    expect(changedPaths(d, next)).toEqual(["steps.0.config.method"]);
    expect(Object.keys((next.steps as { config: object }[])[0]!.config)).toEqual(["url", "method"]);
    const timeout = editStep(d, "fetch", ["config", "timeoutMs"], 5000);
    expect(changedPaths(d, timeout)).toEqual(["steps.0.config.timeoutMs"]);
    expect(getAt(next, ["steps", 1])).toBe(d.steps[1]); // untouched steps are the same objects
  });

  it("reaches loop body steps by id", () => {
    const d = def();
    expect(stepPath(d, "save")).toEqual(["steps", 2, "config", "body", "steps", 1]);
    const next = editStep(d, "save", ["name"], "Save it");
    expect(changedPaths(d, next)).toEqual(["steps.2.config.body.steps.1.name"]);
  });

  it("creates missing parents and prunes objects a removal leaves empty (not the step)", () => {
    const d = def();
    const withRetry = editStep(d, "item", ["retry", "maxAttempts"], 3);
    expect(getAt(withRetry, [...stepPath(d, "item")!, "retry"])).toEqual({ maxAttempts: 3 });
    const removed = editStep(withRetry, "item", ["retry", "maxAttempts"], undefined);
    expect(removed).toEqual(d);
  });

  it("returns the same object for a no-op edit", () => {
    const d = def();
    expect(editStep(d, "fetch", ["config", "method"], "GET")).toBe(d);
    expect(editStep(d, "fetch", ["when"], undefined)).toBe(d);
    expect(setAt(d, ["description"], undefined)).toBe(d);
    expect(editStep(d, "nope", ["name"], "x")).toBe(d);
  });

  it("renaming (edit-ops tryRenameStep) updates every reference; refusals explain", () => {
    const d = def();
    const r = tryRenameStep(d, "fetch", "load");
    expect(r.ok).toBe(true);
    if (!r.ok) return;
    const text = JSON.stringify(r.definition);
    expect(text).not.toMatch(/steps\.fetch/);
    expect(text).toMatch(/steps\.load\.output\.data\.ok/);
    expect(validateDefinition(r.definition).ok).toBe(true);
    const taken = tryRenameStep(d, "fetch", "save");
    expect(taken).toEqual({ ok: false, reason: 'A step "save" already exists.' });
    expect(tryRenameStep(d, "fetch", "Bad-Id").ok).toBe(false);
  });
});

describe("edges", () => {
  //   check ──true──▶ each     (implicit: fetch → check → each)
  it("changing a port in an implicit chain writes the chain out minimally", () => {
    const d = def();
    const r = setEdgePort(d, { from: "check", port: "true", to: "each" }, "false");
    expect(r.ok).toBe(true);
    if (!r.ok) return;
    expect(changedPaths(d, r.definition)).toEqual(["edges"]);
    expect(r.definition.edges).toEqual([
      { from: "fetch", to: "check" },
      { from: "check", to: "each", port: "false" },
    ]);
    expect(r.edge).toEqual({ from: "check", port: "false", to: "each" });
    expect(validateDefinition(r.definition).ok).toBe(true);
    // Back to the primary port: the port is implied again.
    const back = setEdgePort(r.definition, r.edge, "true");
    expect(back.ok && back.definition.edges).toEqual([
      { from: "fetch", to: "check" },
      { from: "check", to: "each" },
    ]);
  });

  it("edits explicit edges in place, in loop bodies too", () => {
    const d = {
      ...def(),
      edges: [
        { from: "fetch", to: "check", onFailure: "continue" },
        { from: "check", to: "each" },
      ],
    };
    const r = setEdgeFailure(d, { from: "fetch", port: "success", to: "check" }, "fail_run");
    expect(r.ok && changedPaths(d, r.definition)).toEqual(["edges.0.onFailure"]);
    const skip = setEdgeFailure(d, { from: "fetch", port: "success", to: "check" }, "skip");
    expect(skip.ok && getAt(skip.definition, ["edges", 0])).toEqual({ from: "fetch", to: "check" });
    const body = setEdgeFailure(d, { from: "item", port: "success", to: "save" }, "continue");
    expect(body.ok && getAt(body.definition, ["steps", 2, "config", "body", "edges"])).toEqual([
      { from: "item", to: "save", onFailure: "continue" },
    ]);
    expect(body.ok && changedPaths(d, body.definition)).toEqual(["steps.2.config.body.edges"]);
  });

  it("refuses ports the source lacks, duplicates and unknown edges", () => {
    const d = {
      ...def(),
      edges: [
        { from: "check", to: "each" },
        { from: "check", to: "each", port: "false" },
      ],
    };
    const edge = { from: "check", port: "true", to: "each" };
    expect(setEdgePort(d, edge, "success")).toEqual({
      ok: false,
      reason: 'condition steps have ports true, false, error; "check" has no port "success".',
    });
    expect(setEdgePort(d, edge, "false")).toEqual({
      ok: false,
      reason: 'There is already an edge from "check" (false) to "each".',
    });
    expect(setEdgePort(d, { from: "check", port: "error", to: "each" }, "true").ok).toBe(false);
    expect(setEdgePort(d, edge, "error").ok).toBe(true);
  });

  it("edgeInfo reports ports, policy and whether the level is implicit", () => {
    const info = edgeInfo(def(), { from: "fetch", port: "success", to: "check" });
    expect(info).toMatchObject({
      found: true,
      sourceType: "http",
      ports: ["success", "error"],
      onFailure: "skip",
      implicit: true,
      index: -1,
    });
  });
});

describe("record keys (inputs, variables)", () => {
  it("renames in place and refuses taken names", () => {
    const d = { ...def(), inputs: { a: { type: "string" }, b: { type: "number" } } };
    const r = renameKey(d, ["inputs"], "a", "c");
    expect(r.ok && Object.keys(r.definition.inputs as object)).toEqual(["c", "b"]);
    expect(renameKey(d, ["inputs"], "a", "b")).toEqual({
      ok: false,
      reason: '"b" already exists.',
    });
    expect(freshKey(d.inputs, "a")).toBe("a_2");
    expect(freshKey(undefined, "input")).toBe("input");
  });
});
