import { describe, expect, it } from "vitest";
import { cutDefinitionToStep, planTestSteps } from "./test-run";

const step = (id: string, type = "transform") => ({ id, type, config: {} });

describe("cutDefinitionToStep", () => {
  //   a ──> b ──> d
  //   a ──> c ──> e        cut to d: a, b, d
  it("keeps the step and its ancestors, and the edges between them", () => {
    const cut = cutDefinitionToStep(
      {
        name: "x",
        steps: [step("a"), step("b"), step("c"), step("d"), step("e")],
        edges: [
          { from: "a", to: "b" },
          { from: "a", to: "c" },
          { from: "b", to: "d" },
          { from: "c", to: "e" },
        ],
        output: "{{ steps.e.output }}",
      },
      "d",
    );
    if ("error" in cut) throw new Error(cut.error);
    expect(cut.steps.map((s) => s.id)).toEqual(["a", "b", "d"]);
    expect(cut.definition.edges).toEqual([
      { from: "a", to: "b" },
      { from: "b", to: "d" },
    ]);
    expect(cut.definition).not.toHaveProperty("output");
  });

  //   a → b → c (array order, no edges)     cut to b: a, b — still without edges
  it("keeps a draft without edges in array order", () => {
    const cut = cutDefinitionToStep({ steps: [step("a"), step("b"), step("c")] }, "b");
    if ("error" in cut) throw new Error(cut.error);
    expect(cut.steps.map((s) => s.id)).toEqual(["a", "b"]);
    expect(cut.definition).not.toHaveProperty("edges");
  });

  it("names a step the draft does not have", () => {
    expect(cutDefinitionToStep({ steps: [step("a")] }, "zz")).toEqual({
      error: 'Step "zz" is not a top-level step of the draft',
    });
  });
});

describe("planTestSteps", () => {
  const steps = [
    { id: "a", type: "transform" },
    { id: "h", type: "http" },
    { id: "n", type: "notify" },
    { id: "t", type: "transform" },
  ];
  const last = new Set(["a", "h"]);
  const plan = (mode: "step" | "up_to", choices = {}) =>
    Object.fromEntries(
      planTestSteps({
        steps,
        stepId: "t",
        mode,
        hasLastOutput: (id) => last.has(id),
        choices,
      }).map((s) => [s.stepId, s.action]),
    );

  it("reuses ancestors' last outputs in step mode; side effects default to their last output or ask", () => {
    expect(plan("step")).toEqual({ a: "use_last", h: "use_last", n: "ask", t: "execute" });
    expect(plan("up_to")).toEqual({ a: "execute", h: "use_last", n: "ask", t: "execute" });
  });

  it("executes a side-effecting step only when confirmed; use_last without an output asks", () => {
    expect(plan("up_to", { h: "execute", n: "use_last" })).toEqual({
      a: "execute",
      h: "execute",
      n: "ask",
      t: "execute",
    });
  });
});
