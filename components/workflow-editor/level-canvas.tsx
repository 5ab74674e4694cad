"use client";
import { Background, Controls, MiniMap, Panel, ReactFlow } from "@xyflow/react";
import { useCallback, useMemo, useRef, type ReactNode } from "react";
import { Inspector, type InspectorSelection } from "@/components/workflow-editor/inspector";
import {
  connectSteps,
  outputPortsOf,
  viewportOf,
  type Definition,
  type XY,
} from "@/lib/workflow/edit-ops";
import type { StepInput } from "@/lib/workflow/steps";
import type { CanvasEdge, CanvasNode } from "./canvas-model";
import { CollapsiblePanel } from "./editor-panel";
import { flowEdgeId } from "./flow-mapping";
import { ConnectDialog, ShortcutsDialog } from "./graph-dialogs";
import styles from "./graph-editor.module.css";
import { NODE_TYPES, NodeActionsContext } from "./nodes/step-node";
import { Palette } from "./palette";
import { useCanvasEdits } from "./use-canvas-edits";
import { useCanvasKeyboard } from "./use-canvas-keyboard";
import { useCanvasSync } from "./use-canvas-sync";
import type { Draft } from "./use-draft";

export type GraphDefinition = Definition & { steps: StepInput[] };
export type Positions = Readonly<Record<string, XY>>;

export interface LevelCanvasProps {
  definition: GraphDefinition;
  loopPath: readonly string[];
  draft: Draft;
  readOnly: boolean;
  compact: boolean;
  focus: { id: string; n: number } | null;
  aside: ReactNode;
  asideSummary?: ReactNode;
  /** Auto-layout positions for steps the definition has not placed (stored ones win). */
  autoPositions: Positions;
  onOpenLevel: (loopPath: readonly string[]) => void;
  onSelectElsewhere: (id: string) => void;
  runStatuses?: Readonly<Record<string, string>>;
}

const NO_STATUSES: Readonly<Record<string, string>> = {};

/**
 * One level's canvas (the top level or a loop body) with the palette and inspector beside it:
 * state sync, edits and keyboard come from their hooks (use-canvas-*.ts); this is the view.
 */
export function LevelCanvas(props: LevelCanvasProps) {
  const {
    definition,
    loopPath,
    draft,
    readOnly,
    compact,
    aside,
    asideSummary,
    onOpenLevel,
    onSelectElsewhere,
  } = props;
  // Run statuses are by top-level step id; loop bodies (one graph for every iteration) show none.
  const runStatuses = loopPath.length ? NO_STATUSES : (props.runStatuses ?? NO_STATUSES);
  const wrapper = useRef<HTMLDivElement>(null);
  const sync = useCanvasSync({ ...props, runStatuses, wrapper });
  const edits = useCanvasEdits({ loopPath, draft, sync, wrapper, onOpenLevel });
  const keys = useCanvasKeyboard({
    definition,
    draft,
    sync,
    edits,
    wrapper,
    onSelectElsewhere,
  });
  const {
    level,
    loopId,
    nodes,
    edges,
    selectedNodes,
    selectedEdges,
    selectedSteps,
    selectHere,
    setPendingSelect,
    getState,
    queueAfter,
    fitOptions,
    isMinimapOn,
    setMinimapOn,
    hasMinimap,
  } = sync;
  const {
    latestDefinition,
    commit,
    onNodesChange,
    onEdgesChange,
    isValidConnection,
    onConnect,
    onConnectEnd,
    addAfterSelected,
    onDragOver,
    onDrop,
    autoLayout,
    addStickyNote,
    actions,
    onMoveEnd,
  } = edits;
  const {
    findOpen,
    setFindOpen,
    query,
    setQuery,
    matches,
    connecting,
    setConnecting,
    helpOpen,
    setHelpOpen,
    goTo,
    onKeyDown,
  } = keys;

  // ---- inspector ------------------------------------------------------------------------------
  const selection = useMemo((): InspectorSelection => {
    if (selectedNodes.length === 1 && selectedEdges.length === 0 && selectedSteps.length === 1)
      return { kind: "step", id: selectedSteps[0]! };
    if (selectedEdges.length === 1 && selectedNodes.length === 0 && selectedEdges[0]!.data) {
      const { from, port, to } = selectedEdges[0]!.data;
      return { kind: "edge", from, port, to };
    }
    return { kind: "none" };
  }, [selectedNodes, selectedEdges, selectedSteps]);

  const onInspectorChange = useCallback(
    (next: Record<string, unknown>, opts?: { key?: string }) =>
      commit(next, opts?.key ? { key: opts.key } : undefined),
    [commit],
  );
  const onInspectorSelect = useCallback(
    (sel: InspectorSelection) => {
      if (sel.kind === "none") selectHere(new Set(), new Set());
      else if (sel.kind === "step") {
        // A renamed step is selected under its new id as soon as the rename lands.
        if (getState().nodes.some((n) => n.id === sel.id)) goTo(sel.id);
        else setPendingSelect(new Set([sel.id]));
      } else selectHere(new Set(), new Set([flowEdgeId(sel.from, sel.port, sel.to)]));
    },
    [goTo, selectHere, setPendingSelect, getState],
  );

  const connectFrom = connecting ? level.steps.find((s) => s.id === connecting) : undefined;
  const savedViewport = loopId === undefined ? viewportOf(definition) : undefined;

  return (
    <div className={styles.layout}>
      {!compact ? (
        <CollapsiblePanel panel="palette" title="Steps" placement="left">
          <Palette onAdd={addAfterSelected} disabled={readOnly} />
        </CollapsiblePanel>
      ) : null}
      <div className={styles.center}>
        <div id="canvas-toolbar" className={styles.toolbar} role="toolbar" aria-label="Graph tools">
          <nav className={styles.breadcrumb} aria-label="Level">
            <button
              type="button"
              className="btn btn-sm"
              aria-current={loopPath.length === 0 ? "page" : undefined}
              onClick={() => onOpenLevel([])}
            >
              Workflow
            </button>
            {loopPath.map((id, i) => (
              <span key={id}>
                <span aria-hidden> › </span>
                <button
                  type="button"
                  className="btn btn-sm"
                  aria-current={i === loopPath.length - 1 ? "page" : undefined}
                  onClick={() => onOpenLevel(loopPath.slice(0, i + 1))}
                >
                  {id} body
                </button>
              </span>
            ))}
          </nav>
          <span className={styles.toolbarGap} />
          {!readOnly ? (
            <>
              <button
                type="button"
                className="btn btn-sm"
                onClick={draft.undo}
                disabled={!draft.canUndo}
              >
                Undo
              </button>
              <button
                type="button"
                className="btn btn-sm"
                onClick={draft.redo}
                disabled={!draft.canRedo}
              >
                Redo
              </button>
              <button type="button" className="btn btn-sm" onClick={() => void autoLayout()}>
                Auto-layout
              </button>
              <button type="button" className="btn btn-sm" onClick={addStickyNote}>
                Add note
              </button>
              <button
                type="button"
                className="btn btn-sm"
                disabled={selectedSteps.length !== 1}
                onClick={() => setConnecting(selectedSteps[0] ?? null)}
              >
                Connect…
              </button>
            </>
          ) : null}
          <button type="button" className="btn btn-sm" onClick={() => setFindOpen(true)}>
            Find…
          </button>
          {!compact ? (
            <button
              type="button"
              className="btn btn-sm"
              aria-pressed={isMinimapOn}
              onClick={() => {
                setMinimapOn(!isMinimapOn);
                queueAfter({ fit: true });
              }}
            >
              Mini map
            </button>
          ) : null}
          <button
            type="button"
            className="btn btn-sm"
            aria-label="Keyboard shortcuts"
            onClick={() => setHelpOpen(true)}
          >
            ?
          </button>
        </div>
        <div
          ref={wrapper}
          className={styles.canvas}
          data-testid="graph-canvas"
          tabIndex={-1}
          onKeyDown={onKeyDown}
        >
          <NodeActionsContext.Provider value={actions}>
            <ReactFlow<CanvasNode, CanvasEdge>
              nodes={nodes}
              edges={edges}
              nodeTypes={NODE_TYPES}
              onNodesChange={onNodesChange}
              onEdgesChange={onEdgesChange}
              onConnect={onConnect}
              onConnectEnd={onConnectEnd}
              isValidConnection={isValidConnection}
              onDragOver={onDragOver}
              onDrop={onDrop}
              onMoveEnd={onMoveEnd}
              onPaneClick={() => wrapper.current?.focus({ preventScroll: true })}
              onNodeDoubleClick={(_, n) => {
                if (n.type === "loop" && n.data && "body" in n.data && n.data.body)
                  onOpenLevel([...loopPath, n.id]);
              }}
              nodesDraggable={!readOnly}
              nodesConnectable={!readOnly}
              nodesFocusable
              edgesFocusable
              elementsSelectable
              deleteKeyCode={null}
              selectionKeyCode="Shift"
              multiSelectionKeyCode={["Shift", "Meta", "Control"]}
              onlyRenderVisibleElements
              {...(savedViewport ? { defaultViewport: savedViewport } : { fitView: true })}
              fitViewOptions={fitOptions}
              minZoom={0.05}
              proOptions={{ hideAttribution: true }}
            >
              <Background />
              <Controls fitViewOptions={fitOptions} />
              {hasMinimap ? (
                <MiniMap pannable zoomable ariaLabel="Mini map" position="bottom-right" />
              ) : null}
              {findOpen ? (
                <Panel position="top-center">
                  <form
                    className={styles.find}
                    role="search"
                    onSubmit={(e) => {
                      e.preventDefault();
                      const first = matches[0];
                      if (first) goTo(first.id);
                    }}
                  >
                    <input
                      type="search"
                      aria-label="Find a step"
                      placeholder="Find a step by id, name or type"
                      autoFocus
                      value={query}
                      onChange={(e) => setQuery(e.target.value)}
                      onKeyDown={(e) => {
                        if (e.key === "Escape") {
                          setFindOpen(false);
                          wrapper.current?.focus({ preventScroll: true });
                        }
                      }}
                    />
                    <span className="small muted" role="status">
                      {query.trim()
                        ? matches.length
                          ? `${matches.length} match${matches.length === 1 ? "" : "es"}`
                          : "No step matches"
                        : ""}
                    </span>
                    <button
                      type="button"
                      className="btn btn-sm"
                      onClick={() => setFindOpen(false)}
                      aria-label="Close find"
                    >
                      ×
                    </button>
                  </form>
                </Panel>
              ) : null}
            </ReactFlow>
          </NodeActionsContext.Provider>
        </div>
        <CollapsiblePanel
          panel="problems"
          title="Problems"
          placement="bottom"
          summary={asideSummary}
        >
          {aside}
        </CollapsiblePanel>
      </div>
      {!compact ? (
        <CollapsiblePanel panel="inspector" title="Inspector" placement="right">
          <Inspector
            definition={definition}
            selection={selection}
            issues={draft.issues}
            readOnly={readOnly}
            onChange={onInspectorChange}
            onSelect={onInspectorSelect}
          />
        </CollapsiblePanel>
      ) : null}
      {connectFrom ? (
        <ConnectDialog
          from={connectFrom.id}
          ports={outputPortsOf(connectFrom.type)}
          targets={level.steps
            .filter((s) => s.id !== connectFrom.id)
            .map((s) => ({
              id: s.id,
              label: typeof s.name === "string" && s.name ? `${s.name} (${s.id})` : s.id,
            }))}
          onConnect={(port, to) => {
            const r = connectSteps(latestDefinition(), { from: connectFrom.id, port, to });
            if (!r.ok) return r.reason;
            commit(r.definition);
            return null;
          }}
          onClose={() => {
            setConnecting(null);
            queueAfter({ focus: connectFrom.id });
          }}
        />
      ) : null}
      {helpOpen ? <ShortcutsDialog onClose={() => setHelpOpen(false)} /> : null}
    </div>
  );
}
