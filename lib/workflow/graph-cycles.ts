/** The cycles of a workflow graph (strongly connected components), each with the links that close it. */
import {
  buildGraph,
  GraphError,
  type GraphSource,
  type GraphStepLike,
  type WorkflowGraph,
} from "./graph";

/** Like buildGraph, but refuses a graph the engine cannot run (cycles). */
export function buildRunnableGraph<S extends GraphStepLike>(
  source: GraphSource<S>,
): WorkflowGraph<S> {
  const graph = buildGraph(source);
  if (!graph.isAcyclic) {
    const cycle = findCycles(graph)[0];
    throw new GraphError(
      `The workflow graph has a cycle${cycle ? `: ${cycle.steps.join(" → ")} → ${cycle.steps[0]}` : ""}.`,
    );
  }
  return graph;
}

export interface CycleLink {
  readonly from: string;
  readonly to: string;
  /** The edge's index, -1 for an implicit edge, or "when" for a when-dependency. */
  readonly via: number | "when";
}

export interface Cycle {
  /** Steps in cycle order; the last links back to the first. */
  readonly steps: readonly string[];
  readonly links: readonly CycleLink[];
}

/**
 * One concrete cycle per strongly connected component (Tarjan, iterative so 1,000-step chains
 * cannot overflow the stack). Self-loops count.
 */
export function findCycles(graph: WorkflowGraph): Cycle[] {
  const links = new Map<string, CycleLink[]>(graph.ids.map((id) => [id, []]));
  for (const edge of graph.edges)
    links.get(edge.from)!.push({ from: edge.from, to: edge.to, via: edge.index });
  for (const [id, deps] of graph.whenDeps)
    for (const dep of deps) links.get(dep)!.push({ from: dep, to: id, via: "when" });
  return stronglyConnected(graph.ids, links)
    .filter(
      (component) =>
        component.length > 1 || links.get(component[0]!)!.some((l) => l.to === component[0]),
    )
    .map((component) => cycleWithin(component, links, graph));
}

function stronglyConnected(
  ids: readonly string[],
  links: ReadonlyMap<string, readonly CycleLink[]>,
): string[][] {
  const index = new Map<string, number>();
  const low = new Map<string, number>();
  const onStack = new Set<string>();
  const stack: string[] = [];
  const components: string[][] = [];
  let counter = 0;
  for (const start of ids) {
    if (index.has(start)) continue;
    const work: Array<{ id: string; next: number }> = [{ id: start, next: 0 }];
    index.set(start, counter);
    low.set(start, counter++);
    stack.push(start);
    onStack.add(start);
    while (work.length > 0) {
      const frame = work[work.length - 1]!;
      const out = links.get(frame.id)!;
      if (frame.next < out.length) {
        const to = out[frame.next++]!.to;
        if (!index.has(to)) {
          index.set(to, counter);
          low.set(to, counter++);
          stack.push(to);
          onStack.add(to);
          work.push({ id: to, next: 0 });
        } else if (onStack.has(to)) {
          low.set(frame.id, Math.min(low.get(frame.id)!, index.get(to)!));
        }
        continue;
      }
      work.pop();
      const parent = work[work.length - 1];
      if (parent) low.set(parent.id, Math.min(low.get(parent.id)!, low.get(frame.id)!));
      if (low.get(frame.id) === index.get(frame.id)) {
        const component: string[] = [];
        let member: string;
        do {
          member = stack.pop()!;
          onStack.delete(member);
          component.push(member);
        } while (member !== frame.id);
        components.push(component);
      }
    }
  }
  return components;
}

/** Walks inside one component from its earliest step until a step repeats: a real cycle. */
function cycleWithin(
  component: readonly string[],
  links: ReadonlyMap<string, readonly CycleLink[]>,
  graph: WorkflowGraph,
): Cycle {
  const members = new Set(component);
  const start = [...component].sort(
    (a, b) => graph.nodes.get(a)!.index - graph.nodes.get(b)!.index,
  )[0]!;
  const path: string[] = [];
  const pathLinks: CycleLink[] = [];
  const seenAt = new Map<string, number>();
  let current = start;
  while (!seenAt.has(current)) {
    seenAt.set(current, path.length);
    path.push(current);
    const link = links.get(current)!.find((l) => members.has(l.to))!;
    pathLinks.push(link);
    current = link.to;
  }
  const from = seenAt.get(current)!;
  return { steps: path.slice(from), links: pathLinks.slice(from) };
}
