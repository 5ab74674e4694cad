import { describe, expect, it } from "vitest";
import type { StepInput } from "@/lib/workflow/steps";
import {
  addNote,
  addStep,
  findSteps,
  isGraphDraft,
  notesOf,
  positionsOf,
  removeEdges,
  updateNotes,
  viewportOf,
  withPositions,
  withViewport,
} from "./canvas";

const t = (id: string): StepInput => ({ id, type: "transform", config: { value: 1 } });
const base = (steps: StepInput[], edges?: { from: string; to: string; port?: string }[]) => ({
  schemaVersion: 1,
  name: "G",
  steps,
  ...(edges ? { edges } : {}),
});

describe("removeEdges", () => {
  //   a ──▶ b ──▶ c   (implicit order)  minus b→c  =  a ──▶ b    c
  it("writes an implicit chain out, minus the removed link", () => {
    const d = base([t("a"), t("b"), t("c")]);
    expect(removeEdges(d, [{ from: "b", port: "success", to: "c" }]).edges).toEqual([
      { from: "a", to: "b" },
    ]);
  });

  //   check ──true──▶ yes
  //         ──false─▶ no      minus false  =  only true is left
  it("matches the port, defaulted or written", () => {
    const d = base(
      [{ id: "check", type: "condition", config: { condition: { ref: "x" } } }, t("yes"), t("no")],
      [
        { from: "check", to: "yes" },
        { from: "check", port: "false", to: "no" },
      ],
    );
    expect(removeEdges(d, [{ from: "check", port: "true", to: "yes" }]).edges).toEqual([
      { from: "check", port: "false", to: "no" },
    ]);
    expect(removeEdges(d, [{ from: "check", port: "error", to: "yes" }])).toBe(d);
  });

  //   each ┌ item ──▶ shape ┐   minus item→shape inside the body
  it("works inside a loop body", () => {
    const d = base([
      {
        id: "each",
        type: "loop",
        config: { items: [], body: { steps: [t("item"), t("shape")] } },
      } as StepInput,
    ]);
    const next = removeEdges(d, [{ from: "item", port: "success", to: "shape" }]);
    expect((next.steps[0]!.config as { body: { edges: unknown } }).body.edges).toEqual([]);
  });
});

describe("addStep", () => {
  it("adds an unconnected step with a fresh id; an implicit chain is written out first", () => {
    const d = base([t("transform"), t("b")]);
    const r = addStep(d, "transform");
    expect(r.ok && r.id).toBe("transform_2");
    if (!r.ok) return;
    expect(r.definition.steps.map((s) => s.id)).toEqual(["transform", "b", "transform_2"]);
    expect(r.definition.edges).toEqual([{ from: "transform", to: "b" }]);
  });

  it("adds into a loop body", () => {
    const d = base([
      {
        id: "each",
        type: "loop",
        config: { items: [], body: { steps: [t("item")] } },
      } as StepInput,
    ]);
    const r = addStep(d, "delay", ["each"]);
    expect(r.ok).toBe(true);
    if (!r.ok) return;
    const body = (r.definition.steps[0]!.config as { body: { steps: StepInput[] } }).body;
    expect(body.steps.map((s) => s.id)).toEqual(["item", "delay"]);
  });
});

describe("layout members", () => {
  it("merges rounded positions and keeps the rest of the layout", () => {
    const d = {
      ...base([t("a")]),
      layout: { positions: { a: { x: 1, y: 2 } }, viewport: { x: 0, y: 0, zoom: 1 } },
    };
    const next = withPositions(d, { b: { x: 10.4, y: 20.6 } });
    expect(positionsOf(next)).toEqual({ a: { x: 1, y: 2 }, b: { x: 10, y: 21 } });
    expect(viewportOf(next)).toEqual({ x: 0, y: 0, zoom: 1 });
    expect(viewportOf(withViewport(next, { x: 5.5, y: -3.2, zoom: 0.12345 }))).toEqual({
      x: 6,
      y: -3,
      zoom: 0.123,
    });
  });

  it("adds, edits and removes sticky notes; an empty list leaves no notes member", () => {
    const first = addNote(base([t("a")]), { x: 10, y: 20 });
    const second = addNote(first.definition, { x: 0, y: 0 }, "each");
    expect(notesOf(second.definition).map((n) => [n.id, n.loop])).toEqual([
      ["n1", undefined],
      ["n2", "each"],
    ]);
    const edited = updateNotes(second.definition, (n) =>
      n.id === "n1" ? { ...n, text: "hi" } : n,
    );
    expect(notesOf(edited)[0]!.text).toBe("hi");
    const gone = updateNotes(edited, () => null);
    expect((gone as { layout?: unknown }).layout).toEqual({});
  });
});

describe("findSteps", () => {
  it("ranks exact ids, then prefixes, then names and types, across loop bodies", () => {
    const d = base([
      { ...t("fetch_all"), name: "Fetch" },
      t("fetch"),
      {
        id: "each",
        type: "loop",
        config: { items: [], body: { steps: [{ ...t("refetch"), name: "Again" }] } },
      } as StepInput,
    ]);
    expect(findSteps(d, "fetch").map((m) => [m.id, m.loopPath])).toEqual([
      ["fetch", []],
      ["fetch_all", []],
      ["refetch", ["each"]],
    ]);
    expect(findSteps(d, "again").map((m) => m.id)).toEqual(["refetch"]);
    expect(findSteps(d, "  ")).toEqual([]);
  });
});

describe("isGraphDraft", () => {
  it("needs a steps array with ids (edges, when present, with from/to)", () => {
    expect(isGraphDraft(base([t("a")]))).toBe(true);
    expect(isGraphDraft({ steps: "x" })).toBe(false);
    expect(isGraphDraft({ steps: [{ type: "transform" }] })).toBe(false);
    expect(isGraphDraft({ steps: [], edges: [{ from: 1 }] })).toBe(false);
  });
});
