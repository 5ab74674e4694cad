"use client";
import "@xyflow/react/dist/style.css";
import { Background, Controls, ReactFlow, type Edge, type Node } from "@xyflow/react";
import { useMemo } from "react";
import { STEP_CATALOG } from "@/lib/workflow/catalog";
import { layoutGraph, type LayoutInput } from "./layout";

type StepNodeData = { label: string; status: string };

/** A read-only graph of a definition snapshot, each step coloured by its status. */
export function RunGraph({
  layout,
  selected,
  onSelect,
}: {
  layout: LayoutInput;
  selected: string | null;
  onSelect: (stepId: string) => void;
}) {
  const { nodes, edges } = useMemo(() => {
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
    return { nodes, edges };
  }, [layout, selected]);
  return (
    <div className="run-graph" data-testid="run-graph">
      <ReactFlow
        nodes={nodes}
        edges={edges}
        fitView
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
        <Controls showInteractive={false} />
      </ReactFlow>
    </div>
  );
}
