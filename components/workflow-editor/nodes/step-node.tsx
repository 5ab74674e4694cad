"use client";
import { Handle, Position, type Node, type NodeProps, type NodeTypes } from "@xyflow/react";
import { createContext, memo, useContext, type ComponentType } from "react";
import { ERROR_PORT, STEP_CATALOG, STEP_TYPES, isStepType } from "@/lib/workflow/catalog";
import type { StepNodeData } from "../flow-mapping";
import { StepIcon } from "../step-icon";
import { TestOutputBadge } from "../test-run/test-output-badge";
import styles from "./step-node.module.css";

/** What a step node shows besides the step: its validation issue count. */
export type CanvasStepData = StepNodeData & {
  readonly issues: number;
  readonly errors: number;
  readonly readOnly: boolean;
  /** The step's status in the run shown on the canvas, if any. */
  readonly runStatus?: string;
};
export type CanvasStepNode = Node<CanvasStepData>;

export type NoteData = { readonly text: string; readonly readOnly: boolean };
export type CanvasNoteNode = Node<NoteData, "note">;

/**
 * Callbacks the nodes need, through a context whose value never changes identity (the canvas
 * keeps them in refs), so editing one step re-renders only that node, never all 1,000.
 */
export interface NodeActions {
  openBody(loopId: string): void;
  setNoteText(noteId: string, text: string): void;
}
export const NodeActionsContext = createContext<NodeActions>({
  openBody: () => {},
  setNoteText: () => {},
});

function typeInfo(type: string) {
  return isStepType(type) ? STEP_CATALOG[type] : undefined;
}

const classes = (...names: (string | false | 0 | undefined)[]) => names.filter(Boolean).join(" ");

/** Left offset of the i-th of n handles along the bottom edge. */
const spread = (i: number, n: number) => `${((i + 1) / (n + 1)) * 100}%`;

function StepNodeView({ id, data, selected }: NodeProps<CanvasStepNode>) {
  const actions = useContext(NodeActionsContext);
  const type = String(data.step.type);
  const info = typeInfo(type);
  const step = data.step;
  const name = typeof step.name === "string" && step.name ? step.name : null;
  const label = info?.label ?? type;
  const bodySteps = data.body?.nodes.length;
  return (
    <div
      className={classes(
        styles.node,
        selected && styles.selected,
        data.errors > 0 && styles.invalid,
        data.runStatus && styles[`run-${data.runStatus}`],
      )}
      data-testid={`step-node-${id}`}
      data-run-status={data.runStatus}
    >
      <Handle type="target" position={Position.Top} id="in" className={styles.handle} />
      <div className={styles.head}>
        <StepIcon icon={info?.icon ?? ""} />
        <span className={styles.name} title={name ?? id}>
          {name ?? id}
        </span>
        {data.issues ? (
          <span
            className={classes(styles.issues, data.errors > 0 && styles.issuesError)}
            data-severity={data.errors ? "error" : "warning"}
            // role="img": ARIA allows a name (the count in words) on it, not on a bare span.
            role="img"
            aria-label={`${data.issues} problem${data.issues === 1 ? "" : "s"}`}
            title={`${data.issues} problem${data.issues === 1 ? "" : "s"}`}
          >
            {data.issues}
          </span>
        ) : null}
      </div>
      {data.runStatus ? (
        <span className={`${styles.runStatus} status-${data.runStatus}`} title="Status in the run">
          {data.runStatus}
        </span>
      ) : null}
      <TestOutputBadge stepId={id} />
      <div className={styles.meta}>
        {name ? <code>{id}</code> : null}
        <span>{label}</span>
        {bodySteps !== undefined ? (
          <button
            type="button"
            className={`${styles.bodyLink} nodrag`}
            onClick={() => actions.openBody(id)}
            aria-label={`Edit the body of ${id}`}
          >
            Edit body ({bodySteps})
          </button>
        ) : null}
      </div>
      {data.ports.length ? (
        <div className={styles.ports} aria-hidden>
          {data.ports.map((port, i) => (
            <span
              key={port}
              className={classes(styles.port, port === ERROR_PORT && styles.portError)}
              style={{ left: spread(i, data.ports.length) }}
            >
              {port}
            </span>
          ))}
        </div>
      ) : null}
      {data.ports.map((port, i) => (
        <Handle
          key={port}
          type="source"
          position={Position.Bottom}
          id={port}
          className={classes(styles.handle, port === ERROR_PORT && styles.handleError)}
          style={{ left: spread(i, data.ports.length) }}
          title={`${port} port`}
        />
      ))}
    </div>
  );
}

const StepNode = memo(StepNodeView);

function NoteNodeView({ id, data, selected }: NodeProps<CanvasNoteNode>) {
  const actions = useContext(NodeActionsContext);
  const noteId = id.slice(id.indexOf(":") + 1);
  return (
    <div
      className={classes(styles.note, selected && styles.selected)}
      data-testid={`note-${noteId}`}
    >
      <textarea
        className="nodrag nowheel"
        aria-label="Note text"
        placeholder="Write a note…"
        value={data.text}
        readOnly={data.readOnly}
        onChange={(e) => actions.setNoteText(noteId, e.target.value)}
      />
    </div>
  );
}

const NoteNode = memo(NoteNodeView);

/**
 * One entry per step type (React Flow picks the component by node `type` = step type), all the
 * shared base component: the catalog drives each type's icon and handles. Defined at module
 * level so the object is stable (React Flow warns and remounts on a new `nodeTypes`).
 */
const asNodeType = (c: unknown) => c as ComponentType<NodeProps>;
export const NODE_TYPES: NodeTypes = {
  ...Object.fromEntries(STEP_TYPES.map((t) => [t, asNodeType(StepNode)])),
  unknown: asNodeType(StepNode),
  note: asNodeType(NoteNode),
};
