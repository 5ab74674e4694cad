/** Connection rules and rename (lib/workflow/edit-ops): refusals name the culprit. */
import { defaultPortOf } from "../catalog";
import { buildGraph, type WorkflowGraph } from "../graph";
import { RenameError, renameStep } from "../refs";
import type { EdgeFailurePolicy } from "../steps";
import {
  describeLevel,
  levelOf,
  listWords,
  materializedEdges,
  outputPortsOf,
  refuse,
  resolvedEdges,
  sameEdge,
  stepIn,
  updateLevel,
  writeEdge,
  type EditResult,
  type GraphDraft,
  type Refusal,
} from "./levels";

// ---------------------------------------------------------------------------------------------
// Connection rules
// ---------------------------------------------------------------------------------------------

export interface ConnectionRequest {
  readonly from: string;
  readonly to: string;
  /** Defaults to the source type's primary port. */
  readonly port?: string;
  readonly onFailure?: EdgeFailurePolicy;
}

/**
 * Whether an edge `from --port--> to` may be added, and why not: unknown steps, a loop boundary,
 * a `return` source, a port the source type does not have, a self-loop, a duplicate, or a cycle
 * (over edges and `when` dependencies, named step by step).
 */
export function canConnect(
  definition: GraphDraft,
  request: ConnectionRequest,
): { ok: true } | Refusal {
  const { from, to } = request;
  const sourceLevel = levelOf(definition, from);
  const targetLevel = levelOf(definition, to);
  if (!sourceLevel) return refuse(`There is no step "${from}".`);
  if (!targetLevel) return refuse(`There is no step "${to}".`);
  if (sourceLevel.loopPath.join("/") !== targetLevel.loopPath.join("/")) {
    return refuse(
      `"${from}" is ${describeLevel(sourceLevel)} and "${to}" is ${describeLevel(targetLevel)}; edges cannot cross a loop boundary.`,
    );
  }
  const level = sourceLevel;
  const source = stepIn(level, from);
  if (source.type === "return")
    return refuse(
      `"${from}" is a return step: it ends the run${level.loopPath.length ? " iteration" : ""}, so no edge can leave it.`,
    );
  const ports = outputPortsOf(source.type);
  const port = request.port ?? defaultPortOf(source.type);
  if (!ports.includes(port))
    return refuse(
      `${source.type} steps have ports ${listWords(ports)}; "${from}" has no port "${port}".`,
    );
  if (from === to) return refuse(`A step cannot connect to itself ("${from}" → "${from}").`);
  const edges = resolvedEdges(level);
  if (edges.some((e) => sameEdge(e, { from, port, to })))
    return refuse(`There is already an edge from "${from}" (${port}) to "${to}".`);
  const graph = buildGraph({ steps: level.steps, edges: [...edges, { from, to, port }] });
  if (!graph.isAcyclic) {
    const back = dependencyPath(graph, to, from);
    if (back)
      return refuse(
        `Connecting "${from}" to "${to}" would create a cycle: ${[from, ...back].map((id) => `"${id}"`).join(" → ")}.`,
      );
  }
  return { ok: true };
}

/**
 * A shortest dependency path `start → … → goal` (edges and `when` references) in a graph that
 * graph.ts has already found cyclic: only the message needs it, detection stays in graph.ts.
 */
function dependencyPath(graph: WorkflowGraph, start: string, goal: string): string[] | undefined {
  const next = new Map<string, string[]>(
    graph.ids.map((id) => [id, (graph.outgoing.get(id) ?? []).map((e) => e.to)]),
  );
  for (const [id, deps] of graph.whenDeps) for (const dep of deps) next.get(dep)?.push(id);
  const previous = new Map<string, string | null>([[start, null]]);
  const queue = [start];
  for (let i = 0; i < queue.length; i++) {
    const id = queue[i]!;
    if (id === goal) {
      const path: string[] = [];
      for (let at: string | null = id; at !== null; at = previous.get(at) ?? null) path.unshift(at);
      return path;
    }
    for (const to of next.get(id) ?? []) {
      if (previous.has(to)) continue;
      previous.set(to, id);
      queue.push(to);
    }
  }
  return undefined;
}

/** Adds the edge when `canConnect` allows it; an implicit array-order chain is written out first. */
export function connectSteps<T extends GraphDraft>(
  definition: T,
  request: ConnectionRequest,
): EditResult<{ definition: T }> {
  const check = canConnect(definition, request);
  if (!check.ok) return check;
  const level = levelOf(definition, request.from)!;
  const source = stepIn(level, request.from);
  const port = request.port ?? defaultPortOf(source.type);
  const edge = writeEdge(
    {
      from: request.from,
      to: request.to,
      port,
      ...(request.onFailure ? { onFailure: request.onFailure } : {}),
    },
    source.type,
  );
  return {
    ok: true,
    definition: updateLevel(definition, level.loopPath, (graph) => ({
      steps: graph.steps,
      edges: [...materializedEdges(graph), edge],
    })),
  };
}

// ---------------------------------------------------------------------------------------------
// Rename
// ---------------------------------------------------------------------------------------------

/**
 * refs.ts `renameStep` (edges, templates, condition refs, `output`, loop bodies, layout) as a
 * result instead of an exception, for the inspector's inline message.
 */
export function tryRenameStep<T>(
  definition: T,
  from: string,
  to: string,
): EditResult<{ definition: T }> {
  try {
    return { ok: true, definition: renameStep(definition, from, to) };
  } catch (error) {
    if (error instanceof RenameError) return refuse(error.message);
    throw error;
  }
}
