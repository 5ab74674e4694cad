/**
 * Definition JSON ⇄ React Flow state, both ways, as pure functions. The definition stays the only
 * persisted shape; nodes and edges are derived from it, and positions come from the layout
 * (stored apart) or, where missing, from the layered auto-layout of the run graph.
 *
 * Round trip: `fromFlow(toFlow(d), d).definition` deep-equals `d` as written — omitted ports and
 * defaults stay omitted and an implicit array-order chain stays implicit — so the JSON view only
 * ever shows the author's own edits. Node order is step order; edge order is edge order.
 */
import type { Edge as FlowEdge, Node as FlowNode } from "@xyflow/react";
import { layoutGraph } from "@/components/workflow-graph/layout";
import { defaultPortOf } from "@/lib/workflow/catalog";
import type { Layout } from "@/lib/workflow/definition";
import { loopBodyOf, outputPortsOf, resolvedEdges, type XY } from "@/lib/workflow/edit-ops";
import type { EdgeFailurePolicy, EdgeInput, StepInput } from "@/lib/workflow/steps";

export type { XY };

export type StepNodeData = {
  /** The step as written; a loop's `config.body` is moved to `body` (edited in a drill-in view). */
  readonly step: StepInput;
  /** Source handles: the catalog's ports plus `error` (none for `return`). */
  readonly ports: readonly string[];
  /** A loop body as its own graph. */
  readonly body?: FlowGraph;
};
/** Node `type` = step type, so each type gets its own node component. */
export type StepNode = FlowNode<StepNodeData, string>;

export type StepEdgeData = {
  readonly from: string;
  readonly port: string;
  readonly to: string;
  readonly onFailure: EdgeFailurePolicy;
  /** The edge as the author wrote it; absent for implicit array-order edges and new edges. */
  readonly written?: EdgeInput;
};
export type StepEdge = FlowEdge<StepEdgeData>;

export interface FlowGraph {
  readonly nodes: StepNode[];
  readonly edges: StepEdge[];
  /** The level had no `edges` (steps run in array order); kept while the edges still form that chain. */
  readonly implicitOrder: boolean;
}

/** Edge id, stable for a given (from, port, to): React Flow keeps selection across re-derivations. */
export function flowEdgeId(from: string, port: string, to: string): string {
  return `${from}:${port}->${to}`;
}

/** A React Flow edge for (from, port, to); `written` keeps an authored edge exact on the way back. */
export function toFlowEdge(
  edge: { from: string; port: string; to: string; onFailure?: EdgeFailurePolicy },
  written?: EdgeInput,
): StepEdge {
  const data: StepEdgeData = {
    from: edge.from,
    port: edge.port,
    to: edge.to,
    onFailure: edge.onFailure ?? "skip",
    ...(written ? { written } : {}),
  };
  return {
    id: flowEdgeId(edge.from, edge.port, edge.to),
    source: edge.from,
    target: edge.to,
    sourceHandle: edge.port,
    data,
  };
}

interface GraphDraft {
  readonly steps: readonly StepInput[];
  readonly edges?: readonly EdgeInput[] | undefined;
}

/** Nodes and edges of a definition; positions from `layout.positions`, else the auto-layout. */
export function toFlow(
  definition: GraphDraft & { readonly layout?: Layout | undefined },
  layout: Layout | undefined = definition.layout,
): FlowGraph {
  return levelToFlow(definition, layout?.positions ?? {});
}

function levelToFlow(level: GraphDraft, positions: Readonly<Record<string, XY>>): FlowGraph {
  const resolved = resolvedEdges(level);
  const missing = level.steps.some((s) => !positions[s.id]);
  const auto = missing
    ? new Map(
        layoutGraph({ steps: level.steps, edges: resolved }).nodes.map((n) => [
          n.id,
          { x: n.x, y: n.y },
        ]),
      )
    : undefined;
  const nodes = level.steps.map((step): StepNode => {
    const stored = positions[step.id];
    const position = stored ? { x: stored.x, y: stored.y } : (auto?.get(step.id) ?? { x: 0, y: 0 });
    const body = loopBodyOf(step);
    const data: StepNodeData = body
      ? {
          step: withoutBody(step),
          ports: outputPortsOf(step.type),
          body: levelToFlow(body, positions),
        }
      : { step, ports: outputPortsOf(step.type) };
    return { id: step.id, type: step.type, position, data };
  });
  const edges = resolved.map((edge, i) => toFlowEdge(edge, level.edges?.[i]));
  return { nodes, edges, implicitOrder: level.edges === undefined };
}

function withoutBody(step: StepInput): StepInput {
  const config = { ...(step.config as Record<string, unknown>) };
  delete config.body;
  return { ...step, config } as StepInput;
}

/**
 * The definition a flow describes: `base` with its steps and edges replaced (every other member
 * kept as it is), plus the node positions for the layout (loop bodies included; ids are unique).
 */
export function fromFlow<T extends GraphDraft>(
  flow: FlowGraph,
  base: T,
): { definition: T; positions: Record<string, XY> } {
  const positions: Record<string, XY> = {};
  const level = levelFromFlow(flow, positions);
  const out: Record<string, unknown> = { ...(base as object), steps: level.steps };
  if (level.edges === undefined) delete out.edges;
  else out.edges = level.edges;
  return { definition: out as T, positions };
}

function levelFromFlow(
  flow: FlowGraph,
  positions: Record<string, XY>,
): { steps: StepInput[]; edges?: EdgeInput[] } {
  const steps = flow.nodes.map((node) => {
    positions[node.id] = { x: node.position.x, y: node.position.y };
    const step =
      node.data.step.id === node.id
        ? node.data.step
        : ({ ...node.data.step, id: node.id } as StepInput);
    if (!node.data.body) return step;
    const body = levelFromFlow(node.data.body, positions);
    return { ...step, config: { ...(step.config as Record<string, unknown>), body } } as StepInput;
  });
  const types = new Map(steps.map((s) => [s.id, s.type]));
  if (flow.implicitOrder && isArrayOrderChain(flow.edges, steps)) return { steps };
  const edges = flow.edges.map(({ data, source, target, sourceHandle }) => {
    const from = data?.from ?? source;
    const to = data?.to ?? target;
    const port = data?.port ?? sourceHandle ?? defaultPortOf(types.get(from) ?? "");
    const onFailure = data?.onFailure ?? "skip";
    const written = data?.written;
    if (written && sameAsWritten(written, { from, port, to, onFailure }, types.get(from) ?? ""))
      return written;
    return {
      from,
      to,
      ...(port !== defaultPortOf(types.get(from) ?? "") ? { port } : {}),
      ...(onFailure !== "skip" ? { onFailure } : {}),
    };
  });
  return { steps, edges };
}

function sameAsWritten(
  written: EdgeInput,
  edge: Required<Pick<StepEdgeData, "from" | "port" | "to" | "onFailure">>,
  sourceType: string,
): boolean {
  return (
    written.from === edge.from &&
    written.to === edge.to &&
    (written.port ?? defaultPortOf(sourceType)) === edge.port &&
    (written.onFailure ?? "skip") === edge.onFailure
  );
}

/** The flow's edges are exactly the chain array order implies (nothing added, removed or changed). */
function isArrayOrderChain(edges: readonly StepEdge[], steps: readonly StepInput[]): boolean {
  const chain = resolvedEdges({ steps });
  return (
    edges.length === chain.length &&
    edges.every((edge, i) => {
      const link = chain[i]!;
      return (
        edge.source === link.from &&
        edge.target === link.to &&
        (edge.data?.port ?? edge.sourceHandle) === link.port &&
        (edge.data?.onFailure ?? "skip") === "skip"
      );
    })
  );
}
