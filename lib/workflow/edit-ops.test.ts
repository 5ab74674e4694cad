import fc from "fast-check";
import { describe, expect, it } from "vitest";
import { STEP_CATALOG } from "./catalog";
import type { JsonValue } from "./json";
import type { WorkflowDefinitionInput } from "./definition";
import {
  canConnect,
  connectSteps,
  copySteps,
  deleteSteps,
  duplicateSteps,
  freshStepId,
  insertStepAfter,
  levelOf,
  outputPortsOf,
  pasteSteps,
  starterConfig,
  stepIdsOf,
  tryRenameStep,
} from "./edit-ops";
import { arbitraryDefinition } from "./edit-ops.arbitraries";
import { STEP_TYPES, type EdgeInput, type StepInput } from "./steps";
import { validateDefinition } from "./validate";

const t = (id: string, value: JsonValue = null): StepInput => ({
  id,
  type: "transform",
  config: { value },
});
const def = (
  steps: StepInput[],
  edges?: EdgeInput[],
  extra: Partial<WorkflowDefinitionInput> = {},
): WorkflowDefinitionInput => ({
  schemaVersion: 1,
  name: "Test",
  steps,
  ...(edges ? { edges } : {}),
  ...extra,
});
const codes = (d: unknown) =>
  validateDefinition(d)
    .issues.filter((i) => i.severity === "error")
    .map((i) => i.code);
const REFERENCE_CODES = [
  "UNKNOWN_STEP_REFERENCE",
  "REFERENCE_NOT_UPSTREAM",
  "REFERENCE_INTO_LOOP_BODY",
  "LOOP_REFERENCE_OUTSIDE_LOOP",
];
const unwrap = <R extends { readonly ok: boolean }>(
  result: R,
): Extract<R, { readonly ok: true }> => {
  if (!result.ok) throw new Error(`refused: ${(result as unknown as { reason: string }).reason}`);
  return result as Extract<R, { readonly ok: true }>;
};

it("property: the generated definitions are valid (the other properties start from valid input)", () => {
  fc.assert(
    fc.property(arbitraryDefinition(), (d) => {
      expect(codes(d)).toEqual([]);
    }),
    { numRuns: 300 },
  );
});

describe("canConnect", () => {
  //   check (condition) ──true──> ok
  //                      ──maybe?──> fix      refused: no such port
  const branching = def(
    [
      { id: "check", type: "condition", config: { condition: { ref: "input.x" } } },
      t("ok"),
      t("fix"),
    ],
    [{ from: "check", to: "ok" }],
    { inputs: { x: { type: "boolean" } } },
  );

  it("refuses a port the source type does not have, listing the ports it has", () => {
    expect(canConnect(branching, { from: "check", port: "maybe", to: "fix" })).toEqual({
      ok: false,
      reason: 'condition steps have ports true, false and error; "check" has no port "maybe".',
    });
    expect(canConnect(branching, { from: "check", port: "false", to: "fix" })).toEqual({
      ok: true,
    });
  });

  //   ok ──> ok
  it("refuses a self-loop", () => {
    expect(canConnect(branching, { from: "ok", to: "ok" })).toEqual({
      ok: false,
      reason: 'A step cannot connect to itself ("ok" → "ok").',
    });
  });

  //   check ──true──> ok   (twice; the port defaults to true)
  it("refuses a duplicate edge, the default port included", () => {
    expect(canConnect(branching, { from: "check", to: "ok" })).toEqual({
      ok: false,
      reason: 'There is already an edge from "check" (true) to "ok".',
    });
    expect(canConnect(branching, { from: "check", port: "error", to: "ok" })).toEqual({ ok: true });
  });

  //   a ──> b ──> c ──> a?      refused, naming the path
  it("refuses an edge that closes a cycle and names it", () => {
    const chain = def([t("a"), t("b"), t("c")]);
    expect(canConnect(chain, { from: "c", to: "a" })).toEqual({
      ok: false,
      reason: 'Connecting "c" to "a" would create a cycle: "c" → "a" → "b" → "c".',
    });
    expect(canConnect(chain, { from: "a", to: "c" })).toEqual({ ok: true });
  });

  //   a ──> b        c.when references b      c ──> a?  →  cycle c → a → b → c (b ⇢ c via when)
  it("counts when-dependencies as links of a cycle", () => {
    const d = def(
      [t("a"), t("b"), { ...t("c"), when: { ref: "steps.b.status", eq: "completed" } }],
      [{ from: "a", to: "b" }],
    );
    expect(canConnect(d, { from: "c", to: "a" })).toEqual({
      ok: false,
      reason: 'Connecting "c" to "a" would create a cycle: "c" → "a" → "b" → "c".',
    });
  });

  //   each ┌ body: item ─> shape ┐ ──done──> after      item ──> after?  refused: crosses the boundary
  it("refuses edges into or out of a loop body", () => {
    const d = def([
      {
        id: "each",
        type: "loop",
        config: { items: [1], body: { steps: [t("item", "{{ loop.item }}"), t("shape")] } },
      },
      t("after"),
    ]);
    expect(canConnect(d, { from: "item", to: "after" })).toEqual({
      ok: false,
      reason:
        '"item" is in the body of loop "each" and "after" is at the top level; edges cannot cross a loop boundary.',
    });
    expect(canConnect(d, { from: "after", to: "shape" }).ok).toBe(false);
    expect(canConnect(d, { from: "shape", to: "item" }).ok).toBe(false); // item → shape already: a cycle inside the body
    expect(canConnect(d, { from: "each", port: "error", to: "after" })).toEqual({ ok: true });
  });

  //   done (return) ──> next?
  it("refuses a return step as a source", () => {
    const d = def([t("next"), { id: "done", type: "return", config: {} }], []);
    expect(canConnect(d, { from: "done", to: "next" })).toEqual({
      ok: false,
      reason: '"done" is a return step: it ends the run, so no edge can leave it.',
    });
    expect(outputPortsOf("return")).toEqual([]);
  });

  it("refuses unknown steps", () => {
    expect(canConnect(branching, { from: "ghost", to: "ok" })).toEqual({
      ok: false,
      reason: 'There is no step "ghost".',
    });
  });

  //   a ──> b ──> c   (implicit)   + a ──> c   →  the chain is written out, then the edge appended
  it("connectSteps writes an implicit chain out before adding the edge", () => {
    const { definition } = unwrap(
      connectSteps(def([t("a"), t("b"), t("c")]), { from: "a", to: "c", onFailure: "continue" }),
    );
    expect(definition.edges).toEqual([
      { from: "a", to: "b" },
      { from: "b", to: "c" },
      { from: "a", to: "c", onFailure: "continue" },
    ]);
  });

  it("property: an accepted connection keeps the definition valid (acyclic), a refused cycle really is one", () => {
    fc.assert(
      fc.property(arbitraryDefinition(), fc.nat(), fc.nat(), fc.nat(), (d, i, j, p) => {
        const level = levelOf(d, "s0")!;
        const from = level.steps[i % level.steps.length]!;
        const to = level.steps[j % level.steps.length]!;
        const ports = outputPortsOf(from.type);
        const port = ports.length ? ports[p % ports.length]! : "success";
        const check = canConnect(d, { from: from.id, port, to: to.id });
        if (check.ok) {
          const next = unwrap(connectSteps(d, { from: from.id, port, to: to.id })).definition;
          expect(
            validateDefinition(next).issues.filter((issue) => issue.severity === "error"),
          ).toEqual([]);
        } else if (check.reason.includes("cycle")) {
          const forced = {
            ...d,
            edges: [
              ...(d.edges ?? d.steps.slice(1).map((s, k) => ({ from: d.steps[k]!.id, to: s.id }))),
              { from: from.id, port, to: to.id },
            ],
          };
          expect(codes(forced)).toContain("CYCLE");
        }
      }),
      { numRuns: 200 },
    );
  });
});

describe("tryRenameStep", () => {
  //   fetch ──> shape      shape.when → fetch ; output → shape
  it("rewrites edges, templates, conditions and output, leaving other text alone", () => {
    const d = def(
      [
        { id: "fetch", type: "http", config: { url: "https://api.example.com/" } },
        {
          id: "shape",
          type: "transform",
          config: {
            value: {
              v: '{{ steps.fetch.output.data.body }} and {{steps["fetch"].status}}',
              note: "steps.fetch stays",
            },
          },
          when: { ref: "steps.fetch.output.data.status", eq: 200 },
        },
      ],
      [{ from: "fetch", to: "shape" }],
      { output: "{{ steps.fetch.output }}" },
    );
    const { definition } = unwrap(tryRenameStep(d, "fetch", "load"));
    expect(definition).toEqual({
      ...d,
      steps: [
        { ...d.steps[0], id: "load" },
        {
          id: "shape",
          type: "transform",
          config: {
            value: {
              v: '{{ steps.load.output.data.body }} and {{steps["load"].status}}',
              note: "steps.fetch stays",
            },
          },
          when: { ref: "steps.load.output.data.status", eq: 200 },
        },
      ],
      edges: [{ from: "load", to: "shape" }],
      output: "{{ steps.load.output }}",
    });
  });

  it("refuses an invalid or taken id", () => {
    const d = def([t("a"), t("b")]);
    expect(tryRenameStep(d, "a", "B-1")).toMatchObject({
      ok: false,
      reason: expect.stringContaining("not a valid step id"),
    });
    expect(tryRenameStep(d, "a", "b")).toEqual({ ok: false, reason: 'A step "b" already exists.' });
  });

  it("property: renaming a step and back is the identity, and keeps the definition valid", () => {
    fc.assert(
      fc.property(arbitraryDefinition(), fc.nat(), (d, i) => {
        const ids = [...stepIdsOf(d)];
        const id = ids[i % ids.length]!;
        const renamed = unwrap(tryRenameStep(d, id, "renamed_step")).definition;
        expect(stepIdsOf(renamed).has(id)).toBe(false);
        expect(codes(renamed)).toEqual(codes(d));
        expect(unwrap(tryRenameStep(renamed, "renamed_step", id)).definition).toEqual(d);
      }),
      { numRuns: 200 },
    );
  });
});

describe("clipboard", () => {
  //   fetch ──> shape ──> save      copy {fetch, shape}: the edge into save is left behind
  const source = def([
    { id: "fetch", type: "http", config: { url: "https://api.example.com/" } },
    t("shape", "{{ steps.fetch.output.data }}"),
    t("save", "{{ steps.shape.output.data }}"),
  ]);

  it("copies steps with the edges among them as definition JSON", () => {
    expect(copySteps(source, ["shape", "fetch"])).toEqual({
      steps: [source.steps[0], source.steps[1]],
      edges: [{ from: "fetch", to: "shape" }],
    });
  });

  //   target: shape          paste fetch ──> shape   →  fetch, shape_2 (fetch ──> shape_2)
  it("renames colliding ids and the references to them, drops edges to steps not pasted", () => {
    const clip = {
      ...copySteps(source, ["fetch", "shape"]),
      edges: [
        { from: "fetch", to: "shape" },
        { from: "shape", to: "save" },
      ],
    };
    const target = def([t("shape")], []);
    const { definition, ids, renamed } = unwrap(pasteSteps(target, clip));
    expect(ids).toEqual(["fetch", "shape_2"]);
    expect(renamed).toEqual({ shape: "shape_2" });
    expect(definition.steps.map((s) => s.id)).toEqual(["shape", "fetch", "shape_2"]);
    expect(definition.edges).toEqual([{ from: "fetch", to: "shape_2" }]);
    expect(definition.steps[2]).toEqual(t("shape_2", "{{ steps.fetch.output.data }}"));
  });

  //   a ──> b   duplicate both  →  a ──> b, a_2 ──> b_2 (b_2 reads a_2)
  it("duplicateSteps = copy + paste next to the originals", () => {
    const d = def([t("a"), t("b", "{{ steps.a.output.data }}")]);
    const { definition } = unwrap(duplicateSteps(d, ["a", "b"]));
    expect(definition.edges).toEqual([
      { from: "a", to: "b" },
      { from: "a_2", to: "b_2" },
    ]);
    expect(definition.steps[3]).toEqual(t("b_2", "{{ steps.a_2.output.data }}"));
    expect(codes(definition)).toEqual([]);
  });

  //   each ┌ item ┐   paste `shape` into the body
  it("pastes into a loop body", () => {
    const d = def([
      {
        id: "each",
        type: "loop",
        config: { items: [1], body: { steps: [t("item", "{{ loop.item }}")] } },
      },
    ]);
    const { definition } = unwrap(
      pasteSteps(d, { steps: [t("item")], edges: [] }, { into: "each" }),
    );
    expect(definition.steps[0]).toMatchObject({
      config: { body: { steps: [{ id: "item" }, { id: "item_2" }], edges: [] } },
    });
    expect(pasteSteps(d, { steps: [t("x")], edges: [] }, { into: "item" })).toMatchObject({
      ok: false,
    });
  });

  it("property: pasting an upstream-closed prefix into an empty workflow adds no reference errors", () => {
    fc.assert(
      fc.property(arbitraryDefinition(), fc.nat(), (d, k) => {
        const ids = d.steps.slice(0, 1 + (k % d.steps.length)).map((s) => s.id);
        const { definition } = unwrap(pasteSteps(def([]), copySteps(d, ids)));
        expect(codes(definition).filter((c) => REFERENCE_CODES.includes(c))).toEqual([]);
        expect(codes(definition)).toEqual([]);
      }),
      { numRuns: 200 },
    );
  });

  it("property: duplicating every top-level step keeps the definition valid", () => {
    fc.assert(
      fc.property(arbitraryDefinition(), (d) => {
        const { definition, ids } = unwrap(
          duplicateSteps(
            d,
            d.steps.map((s) => s.id),
          ),
        );
        expect(ids).toHaveLength(d.steps.length);
        expect(codes(definition)).toEqual([]);
      }),
      { numRuns: 150 },
    );
  });
});

describe("insertStepAfter", () => {
  //   a ──> b   insert after a   →  a ──> http ──> b
  it("inserts into an explicit chain, moving the outgoing edges of that port", () => {
    const d = def(
      [t("a"), t("b")],
      [
        { from: "a", to: "b" },
        { from: "a", port: "error", to: "b" },
      ],
    );
    const { definition, id } = unwrap(insertStepAfter(d, "a", "http"));
    expect(id).toBe("http");
    expect(definition.steps.map((s) => s.id)).toEqual(["a", "http", "b"]);
    expect(definition.edges).toEqual([
      { from: "http", to: "b" },
      { from: "a", port: "error", to: "b" },
      { from: "a", to: "http" },
    ]);
  });

  //   a ──> b (implicit)   insert after a   →  a ──> transform ──> b, still implicit
  it("keeps an implicit chain implicit", () => {
    const { definition, id } = unwrap(
      insertStepAfter(def([t("a"), t("transform")]), "a", "transform"),
    );
    expect(id).toBe("transform_2");
    expect(definition.steps.map((s) => s.id)).toEqual(["a", "transform_2", "transform"]);
    expect("edges" in definition).toBe(false);
  });

  //   check ──true──> yes ; insert after check's false port
  it("inserts after a named port", () => {
    const d = def(
      [{ id: "check", type: "condition", config: { condition: { ref: "lastOutput" } } }, t("yes")],
      [{ from: "check", to: "yes" }],
    );
    const { definition } = unwrap(insertStepAfter(d, "check", "notify", { port: "false" }));
    expect(definition.edges).toEqual([
      { from: "check", to: "yes" },
      { from: "check", port: "false", to: "notify" },
    ]);
    expect(insertStepAfter(d, "check", "notify", { port: "done" })).toMatchObject({ ok: false });
  });

  it("refuses to add after a return step", () => {
    expect(
      insertStepAfter(def([{ id: "r", type: "return", config: {} }]), "r", "transform"),
    ).toMatchObject({ ok: false });
  });

  it("every type's starter config parses, and an inserted step of any type validates", () => {
    for (const type of STEP_TYPES) {
      expect(STEP_CATALOG[type].config.safeParse(starterConfig(type)).success, type).toBe(true);
      const { definition } = unwrap(
        insertStepAfter(
          def([t("first")], [], { constraints: { allowSelfModification: true } }),
          "first",
          type,
        ),
      );
      expect(codes(definition), type).toEqual([]);
    }
  });

  it("fresh ids: shape → shape_2 → shape_3", () => {
    expect(freshStepId("shape", new Set(["shape"]))).toBe("shape_2");
    expect(freshStepId("shape_2", new Set(["shape", "shape_2"]))).toBe("shape_3");
    expect(freshStepId("Bad-Id", new Set())).toBe("bad_id");
  });
});

describe("deleteSteps", () => {
  //   a ──> b ──> c      delete b: both edges go, c's reference to b dangles, output too
  it("removes edges and positions and reports dangling references", () => {
    const d = def(
      [t("a"), t("b"), t("c", "{{ steps.b.output.data }}")],
      [
        { from: "a", to: "b" },
        { from: "b", to: "c" },
      ],
      {
        output: "{{ steps.b.output }}",
        layout: { positions: { a: { x: 0, y: 0 }, b: { x: 0, y: 100 } } },
      },
    );
    const { definition, removed, dangling } = deleteSteps(d, ["b"]);
    expect(removed).toEqual(["b"]);
    expect(definition.edges).toEqual([]);
    expect(definition.layout).toEqual({ positions: { a: { x: 0, y: 0 } } });
    expect(dangling).toEqual([
      {
        stepId: "c",
        target: "b",
        location: ["config", "value"],
        text: "{{ steps.b.output.data }}",
      },
      { stepId: null, target: "b", location: ["output"], text: "{{ steps.b.output }}" },
    ]);
  });

  //   each ┌ item ┐ ──> after      delete each: its body goes with it
  it("deletes a loop with its body", () => {
    const d = def([
      { id: "each", type: "loop", config: { items: [1], body: { steps: [t("item")] } } },
      t("after", "{{ steps.each.output.data }}"),
    ]);
    const { definition, removed, dangling } = deleteSteps(d, ["each"]);
    expect(removed).toEqual(["each", "item"]);
    expect(definition.steps).toEqual([d.steps[1]]);
    expect(dangling.map((r) => r.target)).toEqual(["each"]);
  });
});
