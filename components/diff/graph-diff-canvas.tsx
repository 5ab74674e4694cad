"use client";
import "@xyflow/react/dist/style.css";
import {
  Background,
  Controls,
  Handle,
  MarkerType,
  Position,
  ReactFlow,
  type Edge,
  type Node,
  type NodeProps,
} from "@xyflow/react";
import { useMemo } from "react";
import { ErrorState } from "@/components/ui/states";
import { layoutGraph } from "@/components/workflow-graph/layout";
import { STEP_CATALOG } from "@/lib/workflow/catalog";
import {
  buildDiffGraph,
  DIFF_STATUSES,
  STATUS_TEXT,
  type DiffGraphModel,
  type DiffStatus,
} from "./graph-diff-model";
import styles from "./graph-diff-canvas.module.css";
import type { ReplayStepVerdict } from "@/lib/workflow/dry-run-types";

/** A proposal replay's step verdict (issue #29) on a node: in words, with a coloured bar. */
const VERDICT_TEXT: Record<ReplayStepVerdict, string> = {
  same: "= replay: same",
  different_output: "≠ replay: different output",
  different_path: "↷ replay: different path",
  unverified: "? replay: unverified",
};
const VERDICT_CLASS: Record<ReplayStepVerdict, string> = {
  same: styles.vSame!,
  different_output: styles.vOutput!,
  different_path: styles.vPath!,
  unverified: styles.vUnverified!,
};

type DiffNodeData = {
  label: string;
  typeLabel: string;
  status: DiffStatus;
  isSelected: boolean;
  verdict?: ReplayStepVerdict;
};
type DiffNode = Node<DiffNodeData, "diffStep">;

const STATUS_CLASS: Record<DiffStatus, string> = {
  added: styles.added!,
  removed: styles.removed!,
  changed: styles.changed!,
  unchanged: styles.unchanged!,
};

const EDGE_COLOR: Record<DiffStatus, string> = {
  added: "var(--ok)",
  removed: "var(--danger)",
  changed: "var(--warn)",
  unchanged: "var(--border-strong)",
};

function typeLabelOf(type: string): string {
  return (STEP_CATALOG as Record<string, { label: string } | undefined>)[type]?.label ?? type;
}

function DiffStepNode({ data }: NodeProps<DiffNode>) {
  const s = STATUS_TEXT[data.status];
  return (
    <div
      className={`${styles.node} ${STATUS_CLASS[data.status]}${data.isSelected ? ` ${styles.selected}` : ""}`}
    >
      <Handle type="target" position={Position.Top} isConnectable={false} />
      {/* The spaces keep the visible words apart for the accessible-name check (WCAG 2.5.3). */}
      <div className={styles.nodeTitle}>{data.label}</div>{" "}
      <div className={styles.nodeMeta}>
        <span>{data.typeLabel}</span>{" "}
        {data.status !== "unchanged" ? (
          <span className={styles.nodeStatus}>
            {s.mark} {s.label}
          </span>
        ) : null}
      </div>
      {data.verdict ? (
        <div className={`${styles.verdict} ${VERDICT_CLASS[data.verdict]}`}>
          {VERDICT_TEXT[data.verdict]}
        </div>
      ) : null}
      <Handle type="source" position={Position.Bottom} isConnectable={false} />
    </div>
  );
}

const NODE_TYPES = { diffStep: DiffStepNode };

/**
 * The graph diff of two definitions on a read-only React Flow canvas: the union of both graphs,
 * added steps and edges green, removed ones red, dashed and ghosted, changed amber, the rest muted.
 * Every node says its status in text (and in its accessible name); nodes are buttons: click or
 * Enter selects one (`onSelect`) so a panel can show its config diff.
 */
export function GraphDiffCanvas({
  before,
  after,
  selected,
  onSelect,
  height = 440,
  verdicts,
}: {
  before: unknown;
  after: unknown;
  selected: string | null;
  onSelect: (stepId: string) => void;
  height?: number;
  verdicts?: Readonly<Record<string, ReplayStepVerdict>>;
}) {
  const model = useMemo((): { ok: true; value: DiffGraphModel } | { ok: false; error: string } => {
    try {
      return { ok: true, value: buildDiffGraph(before, after) };
    } catch (e) {
      return { ok: false, error: (e as Error).message };
    }
  }, [before, after]);

  const graph = useMemo(() => {
    if (!model.ok) return null;
    const laid = layoutGraph(model.value.layout);
    const nodes: DiffNode[] = laid.nodes.map((n) => {
      const status = n.status as DiffStatus;
      const typeLabel = typeLabelOf(n.type);
      return {
        id: n.id,
        type: "diffStep",
        position: { x: n.x, y: n.y },
        data: {
          label: n.label,
          typeLabel,
          status,
          isSelected: n.id === selected,
          ...(verdicts?.[n.id] ? { verdict: verdicts[n.id] } : {}),
        },
        selected: n.id === selected,
        // The visible words in order (no parenthesis: WCAG 2.5.3 label in name).
        ariaLabel: `Step ${n.label}, ${typeLabel}, ${STATUS_TEXT[status].label}${verdicts?.[n.id] ? `, ${VERDICT_TEXT[verdicts[n.id]!]}` : ""}`,
        ariaRole: "button",
        domAttributes: { "aria-pressed": n.id === selected },
        draggable: false,
        connectable: false,
      };
    });
    const edges: Edge[] = laid.edges.map((e) => {
      const status = (e.status ?? "unchanged") as DiffStatus;
      const port = e.label;
      const text =
        status === "unchanged"
          ? port
          : `${STATUS_TEXT[status].mark} ${port ? `${port} ` : ""}${STATUS_TEXT[status].label}`;
      return {
        id: `${e.id}:${status}`,
        source: e.source,
        target: e.target,
        ...(text ? { label: text } : {}),
        className: STATUS_CLASS[status],
        ariaLabel: `Edge ${e.source} → ${e.target}${port ? ` on ${port}` : ""}, ${STATUS_TEXT[status].label}`,
        markerEnd: { type: MarkerType.ArrowClosed, color: EDGE_COLOR[status] },
        focusable: false,
      };
    });
    return { nodes, edges };
  }, [model, selected, verdicts]);

  if (!model.ok) return <ErrorState message={`The graph diff cannot be drawn: ${model.error}`} />;
  const summary = model.value.diff.summary;
  // Re-fit when the compared pair changes (fitView only runs on the first render of a flow).
  const fitKey = model.value.layout.steps.map((s) => s.id).join("|");
  return (
    <div className={styles.wrap}>
      <ul className={styles.legend} aria-label="Legend">
        {DIFF_STATUSES.map((s) => (
          <li key={s}>
            <span className={`${styles.swatch} ${STATUS_CLASS[s]}`} aria-hidden />
            {STATUS_TEXT[s].mark ? `${STATUS_TEXT[s].mark} ` : ""}
            {STATUS_TEXT[s].label}
          </li>
        ))}
        {verdicts && Object.keys(verdicts).length > 0
          ? (Object.keys(VERDICT_TEXT) as ReplayStepVerdict[]).map((v) => (
              <li key={v}>
                <span
                  className={`${styles.swatch} ${styles.verdict} ${VERDICT_CLASS[v]}`}
                  aria-hidden
                />
                {VERDICT_TEXT[v]}
              </li>
            ))
          : null}
        <li className={styles.legendNote}>
          {summary.stepsAdded} added, {summary.stepsRemoved} removed, {summary.stepsChanged} changed
          step{summary.stepsChanged === 1 ? "" : "s"}
        </li>
      </ul>
      <div
        className={styles.canvas}
        style={{ height }}
        data-testid="graph-diff-canvas"
        role="region"
        aria-label="Graph diff"
      >
        <ReactFlow
          key={fitKey}
          nodes={graph!.nodes}
          edges={graph!.edges}
          nodeTypes={NODE_TYPES}
          fitView
          fitViewOptions={{ padding: 0.2 }}
          nodesDraggable={false}
          nodesConnectable={false}
          edgesFocusable={false}
          onNodeClick={(_, n) => onSelect(n.id)}
          // Keyboard: Enter/Space on a focused node emits a select change.
          onNodesChange={(changes) => {
            for (const c of changes) if (c.type === "select" && c.selected) onSelect(c.id);
          }}
          proOptions={{ hideAttribution: true }}
          minZoom={0.2}
          maxZoom={1.5}
        >
          <Background />
          <Controls showInteractive={false} position="top-right" />
        </ReactFlow>
      </div>
    </div>
  );
}
