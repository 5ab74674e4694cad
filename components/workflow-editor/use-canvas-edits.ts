"use client";
import {
  applyEdgeChanges,
  applyNodeChanges,
  useReactFlow,
  type Connection,
  type EdgeChange,
  type FinalConnectionState,
  type IsValidConnection,
  type NodeChange,
  type OnMoveEnd,
} from "@xyflow/react";
import { useCallback, useMemo, type DragEvent, type RefObject } from "react";
import { useToast } from "@/components/ui/toast";
import { ELK_MAX_STEPS, elkPositions } from "@/components/workflow-graph/elk-layout";
import { LAYER_GAP, NODE_WIDTH, layoutGraph } from "@/components/workflow-graph/layout";
import { isStepType, type StepType } from "@/lib/workflow/catalog";
import {
  NOTE_PREFIX,
  addNote,
  addStep,
  canConnect,
  connectSteps,
  deleteSteps,
  duplicateSteps,
  insertStepAfter,
  isGraphDraft,
  positionsOf,
  removeEdges,
  resolvedEdges,
  updateNotes,
  withPositions,
  withViewport,
  type DanglingReference,
  type Definition,
  type XY,
} from "@/lib/workflow/edit-ops";
import { placeBelow, withMeasured, type CanvasEdge, type CanvasNode } from "./canvas-model";
import type { GraphDefinition } from "./level-canvas";
import type { NodeActions } from "./nodes/step-node";
import { PALETTE_MIME } from "./palette";
import type { CanvasSync } from "./use-canvas-sync";
import type { DefinitionUpdate, Draft, EditOptions } from "./use-draft";

const PASTE_OFFSET = 40;

/**
 * The canvas's edits: moves, connections, adding (palette, drop), delete, clipboard,
 * duplicate, auto-layout, notes and the saved viewport. Every edit goes through
 * lib/workflow/edit-ops and lands in the draft as definition JSON (`commit`).
 */
export function useCanvasEdits({
  loopPath,
  draft,
  sync,
  wrapper,
  onOpenLevel,
}: {
  loopPath: readonly string[];
  draft: Draft;
  sync: CanvasSync;
  wrapper: RefObject<HTMLDivElement | null>;
  onOpenLevel: (loopPath: readonly string[]) => void;
}) {
  const rf = useReactFlow<CanvasNode, CanvasEdge>();
  const toast = useToast();
  // The draft object is new on every render; its functions are stable.
  const { setDefinition } = draft;
  const { getState, queueAfter, sizes, setNodes, setEdges, setPendingSelect } = sync;
  // Edits build on the draft's latest definition, not the rendered one: two edits can land
  // before React renders (a connect and a drag end on one pointerup, two quick connects), and
  // the second must not be computed from a definition without the first (a lost edge).
  const { latest } = draft;
  const latestDefinition = useCallback((): GraphDefinition => {
    const d = latest();
    return d && isGraphDraft(d) ? (d as GraphDefinition) : getState().definition;
  }, [latest, getState]);

  /**
   * Lands an edit in the draft. The first canvas edit also stores the auto-layout positions of
   * this level, so later edits never re-run the layout (and nothing jumps).
   */
  const commit = useCallback(
    (update: DefinitionUpdate, options?: EditOptions, select?: readonly string[]) => {
      const { nodes: current } = getState();
      const before = latestDefinition();
      const next = typeof update === "function" ? update(before) : update;
      if (next === before) return;
      const stored = positionsOf(before);
      const missing: Record<string, XY> = {};
      for (const n of current) if (n.type !== "note" && !stored[n.id]) missing[n.id] = n.position;
      const withAuto = Object.keys(missing).length
        ? withPositions(next, { ...missing, ...positionsOf(next) })
        : next;
      if (select) setPendingSelect(new Set(select));
      setDefinition(withAuto, options);
    },
    [latestDefinition, setDefinition, getState, setPendingSelect],
  );

  // ---- node / edge changes ---------------------------------------------------------------------
  const onNodesChange = useCallback(
    (changes: NodeChange<CanvasNode>[]) => {
      for (const c of changes)
        if (c.type === "dimensions" && c.dimensions) sizes.set(c.id, c.dimensions);
        else if (c.type === "remove") sizes.delete(c.id);
      setNodes((ns) => withMeasured(applyNodeChanges(changes, ns), sizes));
      if (getState().readOnly) return;
      // Drag ends and keyboard moves arrive as position changes that are not dragging.
      const moved: Record<string, XY> = {};
      for (const c of changes)
        if (c.type === "position" && c.position && !c.dragging) moved[c.id] = c.position;
      const ids = Object.keys(moved);
      if (ids.length === 0) return;
      const stepMoves = Object.fromEntries(
        ids.filter((id) => !id.startsWith(NOTE_PREFIX)).map((id) => [id, moved[id]!]),
      );
      let next: Definition = withPositions(latestDefinition(), stepMoves);
      const noteMoves = new Map(
        ids
          .filter((id) => id.startsWith(NOTE_PREFIX))
          .map((id) => [id.slice(NOTE_PREFIX.length), moved[id]!]),
      );
      if (noteMoves.size)
        next = updateNotes(next, (n) => {
          const p = noteMoves.get(n.id);
          return p ? { ...n, x: Math.round(p.x), y: Math.round(p.y) } : n;
        });
      commit(next, { key: `move:${ids.sort().join(",")}` });
    },
    [latestDefinition, commit, sizes, getState, setNodes],
  );
  const onEdgesChange = useCallback(
    (changes: EdgeChange<CanvasEdge>[]) => setEdges((es) => applyEdgeChanges(changes, es)),
    [setEdges],
  );

  // ---- connections ---------------------------------------------------------------------------
  const isValidConnection = useCallback<IsValidConnection<CanvasEdge>>(
    (c) =>
      canConnect(latestDefinition(), {
        from: c.source,
        to: c.target,
        ...(c.sourceHandle ? { port: c.sourceHandle } : {}),
      }).ok,
    [latestDefinition],
  );
  const onConnect = useCallback(
    (c: Connection) => {
      const result = connectSteps(latestDefinition(), {
        from: c.source,
        to: c.target,
        ...(c.sourceHandle ? { port: c.sourceHandle } : {}),
      });
      if (!result.ok) toast(result.reason, "error");
      else commit(result.definition);
    },
    [latestDefinition, commit, toast],
  );
  // isValidConnection stops a refused edge before onConnect: say why here.
  const onConnectEnd = useCallback(
    (_: MouseEvent | TouchEvent, c: FinalConnectionState) => {
      if (c.isValid !== false || !c.fromNode || !c.toNode || c.fromNode.id === c.toNode.id) return;
      const from = c.fromHandle?.type === "target" ? c.toNode.id : c.fromNode.id;
      const to = c.fromHandle?.type === "target" ? c.fromNode.id : c.toNode.id;
      const port =
        (c.fromHandle?.type === "target" ? c.toHandle?.id : c.fromHandle?.id) ?? undefined;
      const check = canConnect(latestDefinition(), { from, to, ...(port ? { port } : {}) });
      if (!check.ok) toast(check.reason, "error");
    },
    [latestDefinition, toast],
  );

  // ---- adding ---------------------------------------------------------------------------------
  const addAfterSelected = useCallback(
    (type: StepType) => {
      const { selectedSteps: sel, nodes: ns, loopId: inLoop } = getState();
      const def = latestDefinition();
      const afterId = sel.length === 1 ? sel[0]! : null;
      const result =
        afterId !== null
          ? insertStepAfter(def, afterId, type)
          : inLoop !== undefined
            ? addStep(def, type, [...loopPath])
            : insertStepAfter(def, null, type);
      if (!result.ok) {
        toast(result.reason, "error");
        return;
      }
      const steps = ns.filter((n) => n.type !== "note");
      const at = placeBelow(
        afterId ? ns.find((n) => n.id === afterId)?.position : undefined,
        steps.map((n) => n.position),
        LAYER_GAP,
      );
      commit(withPositions(result.definition, { [result.id]: at }), undefined, [result.id]);
      queueAfter({ center: result.id });
      queueAfter({ focus: result.id });
    },
    [latestDefinition, commit, toast, loopPath, getState, queueAfter],
  );

  const onDragOver = useCallback((e: DragEvent) => {
    if (!e.dataTransfer.types.includes(PALETTE_MIME)) return;
    e.preventDefault();
    e.dataTransfer.dropEffect = "copy";
  }, []);
  const onDrop = useCallback(
    (e: DragEvent) => {
      const type = e.dataTransfer.getData(PALETTE_MIME);
      if (!type || !isStepType(type) || getState().readOnly) return;
      e.preventDefault();
      const p = rf.screenToFlowPosition({ x: e.clientX, y: e.clientY });
      const result = addStep(latestDefinition(), type, [...loopPath]);
      if (!result.ok) {
        toast(result.reason, "error");
        return;
      }
      const at = { x: p.x - NODE_WIDTH / 2, y: p.y - 20 };
      commit(withPositions(result.definition, { [result.id]: at }), undefined, [result.id]);
    },
    [latestDefinition, rf, loopPath, commit, toast, getState],
  );

  // ---- delete, clipboard, duplicate -------------------------------------------------------------
  const deleteSelection = useCallback(() => {
    const { nodes: ns, edges: es } = getState();
    const def = latestDefinition();
    const stepIds = ns.filter((n) => n.selected && n.type !== "note").map((n) => n.id);
    const noteIds = new Set(
      ns.filter((n) => n.selected && n.type === "note").map((n) => n.id.slice(NOTE_PREFIX.length)),
    );
    const edgeRefs = es.filter((e) => e.selected && e.data).map((e) => e.data!);
    if (!stepIds.length && !noteIds.size && !edgeRefs.length) return;
    let next: Definition = removeEdges(def, edgeRefs);
    let dangling: DanglingReference[] = [];
    if (stepIds.length) {
      const r = deleteSteps(next as GraphDefinition, stepIds);
      next = r.definition;
      dangling = r.dangling;
    }
    if (noteIds.size) next = updateNotes(next, (n) => (noteIds.has(n.id) ? null : n));
    commit(next);
    if (dangling.length)
      toast(
        `Deleted. ${dangling.length} reference${dangling.length === 1 ? "" : "s"} now point${dangling.length === 1 ? "s" : ""} to a deleted step: ${dangling
          .slice(0, 3)
          .map((d) => `${d.text} in ${d.stepId ?? "output"}`)
          .join(", ")}${dangling.length > 3 ? ", …" : ""}`,
        "error",
      );
  }, [latestDefinition, commit, toast, getState]);

  /** Positions for pasted steps: their originals shifted, else below the level. */
  const placePasted = useCallback(
    (def: Definition, ids: readonly string[], renamed: Record<string, string>) => {
      const { nodes: ns } = getState();
      const original = new Map(Object.entries(renamed).map(([from, to]) => [to, from]));
      const known = positionsOf(latestDefinition());
      const byId = new Map(ns.map((n) => [n.id, n.position]));
      const fallback = placeBelow(undefined, [...byId.values()], LAYER_GAP);
      const out: Record<string, XY> = {};
      ids.forEach((id, i) => {
        const src = original.get(id) ?? id;
        const p = byId.get(src) ?? known[src];
        out[id] = p
          ? { x: p.x + PASTE_OFFSET, y: p.y + PASTE_OFFSET }
          : { x: fallback.x + i * 30, y: fallback.y + i * 30 };
      });
      return withPositions(def, out);
    },
    [latestDefinition, getState],
  );

  const duplicate = useCallback(() => {
    const { selectedSteps: ids } = getState();
    const def = latestDefinition();
    if (!ids.length) return;
    const r = duplicateSteps(def, ids);
    if (!r.ok) return toast(r.reason, "error");
    commit(placePasted(r.definition, r.ids, r.renamed), undefined, r.ids);
  }, [latestDefinition, commit, toast, placePasted, getState]);

  // ---- layout, notes, levels ---------------------------------------------------------------------
  const autoLayout = useCallback(async () => {
    const { level: lvl } = getState();
    const edges = resolvedEdges(lvl);
    let laid: Record<string, XY>;
    try {
      if (lvl.steps.length > ELK_MAX_STEPS) throw new Error("too large for ELK");
      laid = Object.fromEntries(await elkPositions(lvl.steps, edges));
    } catch (error) {
      if (lvl.steps.length <= ELK_MAX_STEPS) console.error("ELK auto-layout failed", error);
      const g = layoutGraph({ steps: lvl.steps, edges });
      laid = Object.fromEntries(g.nodes.map((n) => [n.id, { x: n.x, y: n.y }]));
    }
    // The level may have changed while ELK ran: only steps still in it move.
    const ids = new Set(getState().level.steps.map((s) => s.id));
    const moves = Object.fromEntries(Object.entries(laid).filter(([id]) => ids.has(id)));
    commit(withPositions(latestDefinition(), moves));
    queueAfter({ fit: true });
  }, [latestDefinition, commit, getState, queueAfter]);

  const addStickyNote = useCallback(() => {
    const box = wrapper.current?.getBoundingClientRect();
    const centre = box
      ? rf.screenToFlowPosition({ x: box.left + box.width / 2, y: box.top + box.height / 2 })
      : { x: 0, y: 0 };
    const r = addNote(latestDefinition(), centre, getState().loopId);
    commit(r.definition, undefined, [`${NOTE_PREFIX}${r.id}`]);
  }, [latestDefinition, rf, commit, getState, wrapper]);

  const actions = useMemo<NodeActions>(
    () => ({
      openBody: (id) => onOpenLevel([...loopPath, id]),
      setNoteText: (noteId, text) =>
        commit(
          updateNotes(latestDefinition(), (n) => (n.id === noteId ? { ...n, text } : n)),
          { key: `note:${noteId}` },
        ),
    }),
    [latestDefinition, onOpenLevel, loopPath, commit],
  );

  const onMoveEnd = useCallback<OnMoveEnd>(
    (event, viewport) => {
      // Only the person's own pans and zooms at the top level (fitView moves too, unprompted).
      if (!event || getState().loopId !== undefined || getState().readOnly) return;
      setDefinition(withViewport(latestDefinition(), viewport), { silent: true });
    },
    [latestDefinition, setDefinition, getState],
  );

  return {
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
    deleteSelection,
    placePasted,
    duplicate,
    autoLayout,
    addStickyNote,
    actions,
    onMoveEnd,
  };
}

export type CanvasEdits = ReturnType<typeof useCanvasEdits>;
