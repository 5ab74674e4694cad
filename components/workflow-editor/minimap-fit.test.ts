import { describe, expect, it } from "vitest";
import { fittedRect, intersects, minimapClearPadding, minimapRect } from "./minimap-fit";

const views = [
  { width: 1010, height: 640 },
  { width: 700, height: 500 },
  { width: 1400, height: 400 },
];
const graphs = [
  { width: 180, height: 60 }, // one node
  { width: 400, height: 1200 }, // a tall chain
  { width: 3000, height: 300 }, // a wide fan-out
  { width: 800, height: 600 },
];

describe("minimapClearPadding", () => {
  it.each(views.flatMap((v) => graphs.map((g) => [v, g] as const)))(
    "keeps a fitted graph off the mini map (canvas %o, graph %o)",
    (view, graph) => {
      const fitted = fittedRect(graph, view, minimapClearPadding(graph, view));
      expect(intersects(fitted, minimapRect(view))).toBe(false);
    },
  );

  it("gives up the right strip for a tall graph and the bottom strip for a wide one", () => {
    const view = { width: 1010, height: 640 };
    expect(minimapClearPadding({ width: 400, height: 1200 }, view).right).toBeGreaterThan(200);
    expect(minimapClearPadding({ width: 3000, height: 300 }, view).bottom).toBeGreaterThan(150);
  });

  it("the old fit (padding 0.2 of the graph, centred) covered the mini map", () => {
    const view = { width: 1010, height: 640 };
    const graph = { width: 800, height: 500 };
    // React Flow's numeric padding enlarges the graph by that fraction before fitting.
    const zoom = Math.min(1, view.width / (graph.width * 1.2), view.height / (graph.height * 1.2));
    const [w, h] = [graph.width * zoom, graph.height * zoom];
    const old = { x: (view.width - w) / 2, y: (view.height - h) / 2, width: w, height: h };
    expect(intersects(old, minimapRect(view))).toBe(true);
    const fitted = fittedRect(graph, view, minimapClearPadding(graph, view));
    expect(intersects(fitted, minimapRect(view))).toBe(false);
  });
});
