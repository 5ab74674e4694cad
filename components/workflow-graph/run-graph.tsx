"use client";
import "@xyflow/react/dist/style.css";
import {
  Background,
  Controls,
  ReactFlow,
  useReactFlow,
  useStore,
  type Edge,
  type FitViewOptions,
  type Node,
  type ReactFlowState,
} from "@xyflow/react";
import { useEffect, useMemo, type CSSProperties } from "react";
import { STEP_CATALOG } from "@/lib/workflow/catalog";
import { layoutGraph, type LayoutInput } from "./layout";
import styles from "./run-graph.module.css";

type StepNodeData = { label: string; status: string };

/**
 * The controls sit top-right (15 px panel margin + 26 px buttons); the right padding keeps every
 * fitted node left of them, so they never cover a step. Never zoom in past 1: a two-step run
 * would otherwise fill the panel with two huge boxes.
 */
const FIT_VIEW: FitViewOptions = {
  padding: { top: "24px", bottom: "24px", left: "24px", right: "64px" },
  maxZoom: 1,
};
/** A node's rendered height in flow units, for the panel's natural height (labels wrap). */
const NODE_HEIGHT_ESTIMATE = 64;
const PANEL_PADDING = 48;

/**
 * A read-only graph of a definition snapshot, each step coloured by its status.
 * Cause of the cut-off last node: `fitView` only fitted once, before the panel and the node
 * labels (which grow as statuses arrive) had their final sizes; now it refits on both.
 */
export function RunGraph({
  layout,
  selected,
  onSelect,
}: {
  layout: LayoutInput;
  selected: string | null;
  onSelect: (stepId: string) => void;
}) {
  const { nodes, edges, naturalHeight } = useMemo(() => {
    const g = layoutGraph(layout);
    const nodes: Node<StepNodeData>[] = g.nodes.map((n) => {
      const typeLabel =
        (STEP_CATALOG as Record<string, { label: string } | undefined>)[n.type]?.label ?? n.type;
      return {
        id: n.id,
        position: { x: n.x, y: n.y },
        data: { label: `${n.label} · ${typeLabel} · ${n.status}`, status: n.status },
        className: `run-node run-node-${n.status}${n.id === selected ? " run-node-selected" : ""}`,
        ariaLabel: `Step ${n.label} (${typeLabel}), ${n.status}`,
        draggable: false,
        connectable: false,
      };
    });
    const edges: Edge[] = g.edges.map((e) => ({
      id: e.id,
      source: e.source,
      target: e.target,
      label: e.label,
    }));
    const ys = g.nodes.map((n) => n.y);
    const span = ys.length ? Math.max(...ys) - Math.min(...ys) : 0;
    return { nodes, edges, naturalHeight: span + NODE_HEIGHT_ESTIMATE + PANEL_PADDING };
  }, [layout, selected]);
  // The graph's own height at zoom 1, clamped by the CSS min/max-height of styles.graph.
  const style = { "--run-graph-height": `${Math.round(naturalHeight)}px` } as CSSProperties;
  return (
    <div className={styles.graph} data-testid="run-graph" style={style}>
      <ReactFlow
        nodes={nodes}
        edges={edges}
        fitView
        fitViewOptions={FIT_VIEW}
        nodesDraggable={false}
        nodesConnectable={false}
        edgesFocusable={false}
        onNodeClick={(_, n) => onSelect(n.id)}
        // Keyboard: a focused node selected with Enter/Space opens its details too.
        onNodesChange={(changes) => {
          for (const c of changes) if (c.type === "select" && c.selected) onSelect(c.id);
        }}
        proOptions={{ hideAttribution: true }}
        minZoom={0.2}
      >
        <Background />
        <Controls showInteractive={false} position="top-right" fitViewOptions={FIT_VIEW} />
        <RefitOnChange />
      </ReactFlow>
    </div>
  );
}

/**
 * Every node's id, position and measured size — "" until all are measured. (The store's own
 * `nodesInitialized`, behind useNodesInitialized, only updates when the nodes prop changes.)
 */
const geometryKey = (s: ReactFlowState) => {
  let key = "";
  for (const n of s.nodeLookup.values()) {
    const { width, height } = n.measured;
    if (!width || !height) return "";
    key += `${n.id}@${n.position.x},${n.position.y}:${width}x${height};`;
  }
  return key;
};

/**
 * Refits when the panel resizes (React Flow's store follows the container with a
 * ResizeObserver) or when the nodes move or change size; selecting a node does neither.
 */
function RefitOnChange() {
  const { fitView } = useReactFlow();
  const width = useStore((s) => s.width);
  const height = useStore((s) => s.height);
  const geometry = useStore(geometryKey);
  useEffect(() => {
    if (!geometry || width === 0 || height === 0) return;
    void fitView(FIT_VIEW);
  }, [width, height, geometry, fitView]);
  return null;
}
