/**
 * Generated definitions for benchmarks, editor stress tests and performance tests. The shape is
 * realistic rather than a plain chain: condition branches that rejoin, HTTP calls with templates
 * and secrets, transforms reading upstream outputs, and a layout for every node.
 */
import type { WorkflowDefinitionInput } from "./definition";
import type { EdgeInput, StepInput } from "./steps";

/** A valid definition with exactly `n` steps (1 ≤ n ≤ 1000). */
export function makeLargeDefinition(n: number): WorkflowDefinitionInput {
  if (!Number.isInteger(n) || n < 1 || n > 1000)
    throw new RangeError(`makeLargeDefinition: n must be an integer from 1 to 1000, got ${n}`);
  const steps: StepInput[] = [
    {
      id: "start",
      type: "transform",
      config: { value: { name: "{{ input.name }}", count: "{{ input.count }}" } },
    },
  ];
  const edges: EdgeInput[] = [];
  let previous = "start";
  for (let block = 0; steps.length + 4 <= n; block++) {
    const [check, fetch, fallback, join] = ["check", "fetch", "fallback", "join"].map(
      (k) => `${k}_${block}`,
    ) as [string, string, string, string];
    steps.push(
      {
        id: check,
        type: "condition",
        config: { condition: { ref: `steps.${previous}.output.data`, exists: true } },
      },
      {
        id: fetch,
        type: "http",
        name: `Fetch page ${block}`,
        config: {
          url: `{{ vars.baseUrl }}/items/{{ input.name }}?page=${block}`,
          headers: { authorization: "Bearer {{ secrets.API_TOKEN }}" },
        },
        retry: { maxAttempts: 3, backoffMs: [1000, 5000] },
      },
      {
        id: fallback,
        type: "transform",
        config: { value: { page: block, previous: `{{ steps.${check}.output.data }}` } },
      },
      { id: join, type: "transform", config: { value: "{{ lastOutput.data }}" } },
    );
    edges.push(
      { from: previous, to: check },
      { from: check, to: fetch, port: "true" },
      { from: check, to: fallback, port: "false" },
      { from: fetch, to: join },
      { from: fallback, to: join, onFailure: "continue" },
    );
    previous = join;
  }
  while (steps.length < n) {
    const id = `tail_${steps.length}`;
    steps.push({ id, type: "transform", config: { value: `{{ steps.${previous}.output.data }}` } });
    edges.push({ from: previous, to: id });
    previous = id;
  }
  return {
    schemaVersion: 1,
    name: `Generated workflow (${n} steps)`,
    description: "Produced by makeLargeDefinition for benchmarks and tests.",
    inputs: { name: { type: "string", required: true }, count: { type: "number", default: 1 } },
    variables: { baseUrl: "https://api.example.com" },
    constraints: { maxSteps: Math.max(n, 1), maxParallel: 8 },
    steps,
    edges,
    output: `{{ steps.${previous}.output.data }}`,
    layout: {
      positions: Object.fromEntries(
        steps.map((s, i) => [s.id, { x: (i % 4) * 240, y: Math.floor(i / 4) * 120 }]),
      ),
    },
  };
}
