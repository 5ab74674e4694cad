/**
 * Parallel workflow shapes (steps + edges) shared by the stall regression suite
 * (`parallel-stalls.test.ts`) and `bench/parallel-fanout.ts`, so both exercise the same graphs.
 */
type Shape = { steps: unknown[]; edges: Array<{ from: string; to: string }> };

export const transformStep = (id: string, value: unknown = id) => ({
  id,
  type: "transform",
  config: { value },
});

const ids = (prefix: string, n: number) => Array.from({ length: n }, (_, i) => `${prefix}${i}`);

/*
 *   p0 ─┐
 *   …  ─┼─▶ j      n parallel transforms and a join
 *   pn ─┘
 */
export function fanOut(n: number): Shape {
  return {
    steps: [...ids("p", n).map((id) => transformStep(id)), transformStep("j")],
    edges: ids("p", n).map((from) => ({ from, to: "j" })),
  };
}

/*
 *   h0 ─▶ (b0_0 … b0_3) ─▶ h1 ─▶ (b1_0 … b1_3) ─▶ … ─▶ h4 ─▶ (b4_0 … b4_3)
 *   25 transforms: 5 stages of one head fanning out to 4 branches that join the next head.
 */
export function fanOutStages(): Shape {
  const shape: Shape = { steps: [], edges: [] };
  for (let k = 0; k < 5; k++) {
    shape.steps.push(transformStep(`h${k}`));
    for (let i = 0; i < 4; i++) {
      shape.steps.push(transformStep(`b${k}_${i}`));
      shape.edges.push({ from: `h${k}`, to: `b${k}_${i}` });
      if (k < 4) shape.edges.push({ from: `b${k}_${i}`, to: `h${k + 1}` });
    }
  }
  return shape;
}

/*
 *   each(4 items, concurrency 2) { x ─┬─▶ p ─┬─▶ y (= loop.index)
 *                                     └─▶ q ─┘                     }
 */
export function fanOutInLoop(): { steps: unknown[]; output: string } {
  return {
    steps: [
      {
        id: "each",
        type: "loop",
        config: {
          items: [1, 2, 3, 4],
          concurrency: 2,
          body: {
            steps: [
              transformStep("x"),
              transformStep("p"),
              transformStep("q"),
              transformStep("y", "{{ loop.index }}"),
            ],
            edges: [
              { from: "x", to: "p" },
              { from: "x", to: "q" },
              { from: "p", to: "y" },
              { from: "q", to: "y" },
            ],
          },
        },
      },
    ],
    output: "{{ steps.each.output.data }}",
  };
}
