import fc from "fast-check";
import { describe, expect, it } from "vitest";
import { LAYER_GAP } from "@/components/workflow-graph/layout";
import type { WorkflowDefinitionInput } from "@/lib/workflow/definition";
import type { JsonValue } from "@/lib/workflow/json";
import { arbitraryDefinition } from "@/lib/workflow/edit-ops.arbitraries";
import { normalizeDefinition } from "@/lib/workflow/normalize";
import type { EdgeInput, StepInput } from "@/lib/workflow/steps";
import { flowEdgeId, fromFlow, toFlow, toFlowEdge } from "./flow-mapping";

const t = (id: string, value: JsonValue = null): StepInput => ({
  id,
  type: "transform",
  config: { value },
});
const def = (steps: StepInput[], edges?: EdgeInput[]): WorkflowDefinitionInput => ({
  schemaVersion: 1,
  name: "Flow",
  steps,
  ...(edges ? { edges } : {}),
});

describe("toFlow", () => {
  //   check (condition) ──true──> yes
  //                      ──false─> no ──(continue)
  //                      ──error─> no
  const d = def(
    [
      { id: "check", type: "condition", config: { condition: { ref: "lastOutput" } } },
      t("yes"),
      t("no"),
      { id: "end", type: "return", config: {} },
    ],
    [
      { from: "check", to: "yes" },
      { from: "check", port: "false", to: "no", onFailure: "continue" },
      { from: "check", port: "error", to: "no" },
    ],
  );

  it("makes one node per step (id, type, ports) and one edge per (from, port, to)", () => {
    const flow = toFlow(d);
    expect(flow.nodes.map((n) => [n.id, n.type, n.data.ports])).toEqual([
      ["check", "condition", ["true", "false", "error"]],
      ["yes", "transform", ["success", "error"]],
      ["no", "transform", ["success", "error"]],
      ["end", "return", []],
    ]);
    expect(flow.nodes[0]!.data.step).toBe(d.steps[0]);
    expect(
      flow.edges.map((e) => [e.id, e.source, e.sourceHandle, e.target, e.data!.onFailure]),
    ).toEqual([
      ["check:true->yes", "check", "true", "yes", "skip"],
      ["check:false->no", "check", "false", "no", "continue"],
      ["check:error->no", "check", "error", "no", "skip"],
    ]);
    expect(flow.implicitOrder).toBe(false);
  });

  it("places nodes from the layout, the rest by the layered auto-layout", () => {
    const flow = toFlow(d, { positions: { yes: { x: 500, y: 40 } } });
    const at = Object.fromEntries(flow.nodes.map((n) => [n.id, n.position]));
    expect(at.yes).toEqual({ x: 500, y: 40 });
    expect(at.check!.y).toBe(0);
    expect(at.no!.y).toBe(LAYER_GAP);
    expect(at.end!.y).toBe(0); // a second root, beside check
  });

  //   each ┌ item ──> shape ┐ ──done──> after
  it("nests a loop body as its own graph, round-tripped", () => {
    const loop = def([
      {
        id: "each",
        type: "loop",
        config: {
          items: [1, 2],
          body: {
            steps: [t("item", "{{ loop.item }}"), t("shape")],
            edges: [{ from: "item", to: "shape" }],
          },
          concurrency: 2,
        },
      },
      t("after"),
    ]);
    const flow = toFlow(loop);
    const node = flow.nodes[0]!;
    expect(node.data.step).toEqual({
      id: "each",
      type: "loop",
      config: { items: [1, 2], concurrency: 2 },
    });
    expect(node.data.body!.nodes.map((n) => n.id)).toEqual(["item", "shape"]);
    expect(node.data.body!.edges.map((e) => e.id)).toEqual(["item:success->shape"]);
    expect(flow.edges.map((e) => e.id)).toEqual(["each:done->after"]);
    const back = fromFlow(flow, loop);
    expect(back.definition).toEqual(loop);
    expect(Object.keys(back.positions)).toEqual(["each", "item", "shape", "after"]);
  });
});

describe("fromFlow", () => {
  //   a ──> b ──> c   (implicit)
  it("keeps implicit order while the edges are the array-order chain", () => {
    const d = def([t("a"), t("b"), t("c")]);
    const flow = toFlow(d);
    expect(flow.implicitOrder).toBe(true);
    expect(flow.edges.map((e) => e.id)).toEqual(["a:success->b", "b:success->c"]);
    expect(fromFlow(flow, d).definition).toEqual(d);
    expect("edges" in fromFlow(flow, d).definition).toBe(false);
  });

  //   a ──> b ──> c   + a ──> c (new)   →  explicit edges, written minimally
  it("writes edges out once the flow no longer is the implicit chain", () => {
    const d = def([t("a"), t("b"), t("c")]);
    const flow = toFlow(d);
    const edited = {
      ...flow,
      edges: [...flow.edges, toFlowEdge({ from: "a", port: "error", to: "c" })],
    };
    expect(fromFlow(edited, d).definition.edges).toEqual([
      { from: "a", to: "b" },
      { from: "b", to: "c" },
      { from: "a", port: "error", to: "c" },
    ]);
  });

  //   a ──(continue)──> b   edited to onFailure fail_run
  it("writes an authored edge as written unless it was edited", () => {
    const d = def([t("a"), t("b")], [{ from: "a", to: "b", port: "success", onFailure: "skip" }]);
    const flow = toFlow(d);
    expect(fromFlow(flow, d).definition.edges).toEqual([
      { from: "a", to: "b", port: "success", onFailure: "skip" },
    ]);
    const edge = flow.edges[0]!;
    const edited = {
      ...flow,
      edges: [{ ...edge, data: { ...edge.data!, onFailure: "fail_run" as const } }],
    };
    expect(fromFlow(edited, d).definition.edges).toEqual([
      { from: "a", to: "b", onFailure: "fail_run" },
    ]);
    expect(flowEdgeId("a", "success", "b")).toBe(edge.id);
  });

  it("property: fromFlow(toFlow(d)) equals d exactly (deep), implicit order included", () => {
    fc.assert(
      fc.property(arbitraryDefinition(), fc.boolean(), (d, withLayout) => {
        const layout = withLayout ? { positions: { s0: { x: 7, y: 9 } } } : undefined;
        const flow = toFlow(d, layout);
        const { definition, positions } = fromFlow(flow, d);
        expect(definition).toEqual(d);
        expect("edges" in definition).toBe("edges" in d);
        expect(normalizeDefinition(definition)).toEqual(normalizeDefinition(d));
        if (!d.steps.some((s) => s.type === "loop"))
          expect(JSON.stringify(definition)).toBe(JSON.stringify(d));
        if (withLayout) expect(positions.s0).toEqual({ x: 7, y: 9 });
        expect(new Set(flow.edges.map((e) => e.id)).size).toBe(flow.edges.length);
      }),
      { numRuns: 300 },
    );
  });
});
