import { describe, expect, it } from "vitest";
import { buildDiffGraph, stepDiffDetail } from "./graph-diff-model";

const t = (id: string, value: unknown = id) => ({ id, type: "transform", config: { value } });
const def = (steps: unknown[], edges?: unknown[]) => ({
  schemaVersion: 1,
  name: "wf",
  steps,
  ...(edges ? { edges } : {}),
});

describe("buildDiffGraph", () => {
  //  before: a ─▶ b ─▶ c          after: a ─▶ b' ─▶ d
  //  b changed (config), c removed (ghost stays after b), d added,
  //  edge b→c removed, b→d added, a→b unchanged.
  it("marks steps and edges of the union graph", () => {
    const m = buildDiffGraph(def([t("a"), t("b"), t("c")]), def([t("a"), t("b", 2), t("d")]));
    expect(m.layout.steps.map((s) => s.id)).toEqual(["a", "b", "c", "d"]);
    expect(m.layout.statuses).toEqual({
      a: "unchanged",
      b: "changed",
      c: "removed",
      d: "added",
    });
    expect(m.layout.edges.map((e) => `${e.from}>${e.to}:${e.status}`).sort()).toEqual([
      "a>b:unchanged",
      "b>c:removed",
      "b>d:added",
    ]);
    expect(m.diff.summary.total).toBeGreaterThan(0);
  });

  //  a ─▶ b   vs   a ─▶ b   (implicit chain written out as an edge): no change at all
  it("treats an implicit chain and the same explicit edge as unchanged", () => {
    const m = buildDiffGraph(
      def([t("a"), t("b")]),
      def([t("a"), t("b")], [{ from: "a", to: "b" }]),
    );
    expect(m.diff.isEmpty).toBe(true);
    expect(Object.values(m.layout.statuses)).toEqual(["unchanged", "unchanged"]);
    expect(m.layout.edges.map((e) => e.status)).toEqual(["unchanged"]);
  });

  //  removed first step: x ─▶ a  →  a ; the ghost x goes first
  it("puts a removed step without a predecessor first", () => {
    const m = buildDiffGraph(def([t("x"), t("a")]), def([t("a")]));
    expect(m.layout.steps.map((s) => s.id)).toEqual(["x", "a"]);
  });

  it("throws on an invalid definition", () => {
    expect(() => buildDiffGraph({ nope: true }, def([t("a")]))).toThrow();
  });
});

describe("stepDiffDetail", () => {
  const before = def([t("a"), t("b")]);
  const after = def([t("a", "new"), t("c")]);
  const { diff } = buildDiffGraph(before, after);

  it("lists field changes of a changed step", () => {
    const d = stepDiffDetail(before, after, diff, "a")!;
    expect(d.status).toBe("changed");
    expect(d.changes).toEqual([{ path: ["config", "value"], before: "a", after: "new" }]);
  });

  it("knows added, removed and unknown steps", () => {
    expect(stepDiffDetail(before, after, diff, "c")?.status).toBe("added");
    expect(stepDiffDetail(before, after, diff, "b")?.status).toBe("removed");
    expect(stepDiffDetail(before, after, diff, "zzz")).toBeNull();
  });
});
