/**
 * The editor's auto-layout: ELK's layered algorithm (elkjs, Eclipse Layout Kernel compiled to JS).
 * Unlike dagre it knows ports: each output handle sits at a fixed spot on the node's bottom edge
 * (`handleX`), so ELK orders the children of a branch in port order and the edges from a
 * Condition's true/false or an approval's approved/rejected do not cross. ELK's API is
 * asynchronous and its bundle is large, so it is loaded on first use; above
 * ELK_MAX_STEPS the synchronous dagre layout (layout.ts) is kept for speed.
 */
import type { ElkNode } from "elkjs/lib/elk-api";
import { outputPortsOf } from "@/lib/workflow/edit-ops";
import {
  LAYER_GAP,
  NODE_GAP,
  NODE_HEIGHT,
  NODE_WIDTH,
  type GraphEdgeInput,
  type GraphStepLike,
} from "./layout";

export type XY = { x: number; y: number };

/** Above this many steps the editor keeps dagre's layout (ELK's is slower on very large graphs). */
export const ELK_MAX_STEPS = 300;

/** Horizontal offset of a source handle: the i-th of n spread evenly along the bottom edge. */
export function handleX(port: string, ports: readonly string[]): number {
  const i = ports.indexOf(port);
  const n = ports.length;
  return i < 0 ? NODE_WIDTH / 2 : (NODE_WIDTH * (i + 1)) / (n + 1);
}

type ElkInstance = { layout(graph: ElkNode): Promise<ElkNode> };
let elk: Promise<ElkInstance> | undefined;
function loadElk(): Promise<ElkInstance> {
  elk ??= import("elkjs/lib/elk.bundled.js").then(({ default: ELK }) => new ELK());
  return elk;
}

const portId = (step: string, port: string) => `${step}\u0000out\u0000${port}`;
const inPort = (step: string) => `${step}\u0000in`;

/**
 * Top-left positions by step id, shifted so the top-left-most node is at (0, 0). Edges to
 * unknown steps and self-loops are ignored; an edge from a port the type does not have leaves
 * from the node's centre.
 */
export async function elkPositions(
  steps: readonly GraphStepLike[],
  edges: readonly GraphEdgeInput[],
): Promise<Map<string, XY>> {
  const ids = new Set(steps.map((s) => s.id));
  const portsByStep = new Map(steps.map((s) => [s.id, outputPortsOf(s.type)]));
  const graph: ElkNode = {
    id: "root",
    layoutOptions: {
      "elk.algorithm": "layered",
      "elk.direction": "DOWN",
      "elk.spacing.nodeNode": String(NODE_GAP - NODE_WIDTH),
      "elk.layered.spacing.nodeNodeBetweenLayers": String(LAYER_GAP - NODE_HEIGHT),
      "elk.layered.crossingMinimization.strategy": "LAYER_SWEEP",
      "elk.layered.nodePlacement.strategy": "NETWORK_SIMPLEX",
      // The definition's order breaks ties, so equal layouts come out the same on every run.
      "elk.layered.considerModelOrder.strategy": "NODES_AND_EDGES",
      "elk.padding": "[top=0,left=0,bottom=0,right=0]",
    },
    children: steps.map((s) => ({
      id: s.id,
      width: NODE_WIDTH,
      height: NODE_HEIGHT,
      layoutOptions: { "elk.portConstraints": "FIXED_POS" },
      ports: [
        {
          id: inPort(s.id),
          x: NODE_WIDTH / 2,
          y: 0,
          width: 0,
          height: 0,
          layoutOptions: { "elk.port.side": "NORTH" },
        },
        ...portsByStep.get(s.id)!.map((p, _i, all) => ({
          id: portId(s.id, p),
          x: handleX(p, all),
          y: NODE_HEIGHT,
          width: 0,
          height: 0,
          layoutOptions: { "elk.port.side": "SOUTH" },
        })),
      ],
    })),
    edges: edges
      .filter((e) => ids.has(e.from) && ids.has(e.to) && e.from !== e.to)
      .map((e, i) => {
        const port = e.port && portsByStep.get(e.from)!.includes(e.port) ? e.port : undefined;
        return {
          id: `e${i}`,
          sources: [port ? portId(e.from, port) : e.from],
          targets: [inPort(e.to)],
        };
      }),
  };
  const laid = await (await loadElk()).layout(graph);
  const children = laid.children ?? [];
  const minX = Math.min(...children.map((c) => c.x ?? 0));
  const minY = Math.min(...children.map((c) => c.y ?? 0));
  return new Map(
    children.map((c) => [
      c.id,
      { x: Math.round((c.x ?? 0) - minX), y: Math.round((c.y ?? 0) - minY) },
    ]),
  );
}
