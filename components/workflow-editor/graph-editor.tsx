"use client";
import "@xyflow/react/dist/style.css";
import {
  Background,
  Controls,
  MiniMap,
  Panel,
  ReactFlow,
  ReactFlowProvider,
  applyEdgeChanges,
  applyNodeChanges,
  useReactFlow,
  useUpdateNodeInternals,
  type Connection,
  type EdgeChange,
  type FinalConnectionState,
  type IsValidConnection,
  type NodeChange,
  type OnMoveEnd,
} from "@xyflow/react";
import {
  useCallback,
  useEffect,
  useImperativeHandle,
  useLayoutEffect,
  useMemo,
  useRef,
  useState,
  type DragEvent,
  type KeyboardEvent,
  type ReactNode,
  type Ref,
} from "react";
import { Inspector, type InspectorSelection } from "@/components/workflow-editor/inspector";
import { useToast } from "@/components/ui/toast";
import {
  LAYER_GAP,
  NODE_HEIGHT,
  NODE_WIDTH,
  layoutGraph,
} from "@/components/workflow-graph/layout";
import { ELK_MAX_STEPS, elkPositions } from "@/components/workflow-graph/elk-layout";
import { isStepType, type StepType } from "@/lib/workflow/catalog";
import {
  NOTE_PREFIX,
  addNote,
  addStep,
  canConnect,
  connectSteps,
  copySteps,
  deleteSteps,
  duplicateSteps,
  findSteps,
  insertStepAfter,
  isGraphDraft,
  levelAt,
  levelOf,
  notesOf,
  outputPortsOf,
  pasteSteps,
  positionsOf,
  readClipboard,
  removeEdges,
  resolvedEdges,
  updateNotes,
  viewportOf,
  withPositions,
  withViewport,
  type DanglingReference,
  type Definition,
} from "@/lib/workflow/edit-ops";
import type { Layout } from "@/lib/workflow/definition";
import type { StepInput } from "@/lib/workflow/steps";
import {
  buildEdges,
  type EdgeCache,
  buildNodes,
  issueCounts,
  placeBelow,
  reconcileEdges,
  reconcileNodes,
  withMeasured,
  type CanvasEdge,
  type CanvasNode,
  type NodeCache,
} from "./canvas-model";
import { flowEdgeId, toFlow, type XY } from "./flow-mapping";
import { CollapsiblePanel } from "./editor-panel";
import { ConnectDialog, ShortcutsDialog } from "./graph-dialogs";
import styles from "./graph-editor.module.css";
import { minimapClearPadding, type Size } from "./minimap-fit";
import { NODE_TYPES, NodeActionsContext, type NodeActions } from "./nodes/step-node";
import { PALETTE_MIME, Palette } from "./palette";
import { canvasActionOf, isTextEntry } from "./shortcuts";
import type { DefinitionUpdate, Draft, EditOptions } from "./use-draft";

type GraphDefinition = Definition & { steps: StepInput[] };

export interface GraphEditorHandle {
  /** Shows the step's level, selects it and centres it (problems list, find). */
  selectStep(id: string): void;
}

/** Fits the graph clear of the mini map (see minimap-fit.ts); sizes in screen px. */
function fitViewOptionsFor(graph: Size, view: Size) {
  const p = minimapClearPadding(graph, view);
  return {
    padding: {
      top: `${p.top}px`,
      right: `${p.right}px`,
      bottom: `${p.bottom}px`,
      left: `${p.left}px`,
    },
    maxZoom: 1,
  } as const;
}

/** The bounding box of the drawn nodes (measured sizes where React Flow has them). */
function graphSize(nodes: readonly CanvasNode[]): Size {
  if (!nodes.length) return { width: NODE_WIDTH, height: NODE_HEIGHT };
  let [x0, y0, x1, y1] = [Infinity, Infinity, -Infinity, -Infinity];
  for (const n of nodes) {
    const w = n.measured?.width ?? NODE_WIDTH;
    const h = n.measured?.height ?? NODE_HEIGHT;
    x0 = Math.min(x0, n.position.x);
    y0 = Math.min(y0, n.position.y);
    x1 = Math.max(x1, n.position.x + w);
    y1 = Math.max(y1, n.position.y + h);
  }
  return { width: x1 - x0, height: y1 - y0 };
}

type Positions = Readonly<Record<string, XY>>;
const NO_POSITIONS: Positions = {};

/**
 * ELK positions for a level whose steps are not all placed yet (a new workflow, a template, a
 * step added in the JSON view). `isPending` only until the first answer, so the canvas opens
 * laid out instead of jumping; later answers (the structure changed) just update positions.
 */
function useElkPositions(
  definition: GraphDefinition,
  loopPath: readonly string[],
): { isPending: boolean; positions: Positions } {
  const level = levelAt(definition, loopPath);
  const stored = positionsOf(definition);
  const isMissing =
    !!level && level.steps.length <= ELK_MAX_STEPS && level.steps.some((s) => !stored[s.id]);
  const edges = level ? resolvedEdges(level) : [];
  const signature = isMissing
    ? JSON.stringify([
        level.steps.map((s) => [s.id, s.type]),
        edges.map((e) => [e.from, e.port, e.to]),
      ])
    : null;
  const [result, setResult] = useState<{ signature: string; positions: Positions } | null>(null);
  const input = useRef({ steps: level?.steps ?? [], edges });
  useLayoutEffect(() => {
    input.current = { steps: level?.steps ?? [], edges };
  });
  useEffect(() => {
    if (!signature) return;
    let isLive = true;
    const { steps, edges: es } = input.current;
    elkPositions(steps, es).then(
      (p) => isLive && setResult({ signature, positions: Object.fromEntries(p) }),
      (error: unknown) => {
        // dagre's layout (flow-mapping) stands in; the editor stays usable.
        console.error("ELK auto-layout failed; using the fallback layout", error);
        if (isLive) setResult({ signature, positions: NO_POSITIONS });
      },
    );
    return () => {
      isLive = false;
    };
  }, [signature]);
  return {
    isPending: signature !== null && result === null,
    positions: result?.positions ?? NO_POSITIONS,
  };
}

const TOP_LEVEL: readonly string[] = [];
const PASTE_OFFSET = 40;
/** How long (in frames) a focus request waits for its node to be shown. */
const FOCUS_FRAMES = 60;

/**
 * Moves keyboard focus to a node once React Flow shows it, so the keyboard path continues on
 * the step just added or connected. A new node is drawn with `visibility: hidden` until it has
 * been measured, and a node outside the viewport is not drawn at all; neither can take focus, so
 * this retries every frame until focus lands (or gives up). Returns a cancel function.
 */
function focusNodeWhenShown(root: HTMLElement, id: string): () => void {
  const selector = `.react-flow__node[data-id="${CSS.escape(id)}"]`;
  let frames = FOCUS_FRAMES;
  let request = 0;
  const attempt = () => {
    const el = root.querySelector<HTMLElement>(selector);
    el?.focus({ preventScroll: true });
    if ((!el || document.activeElement !== el) && --frames > 0)
      request = requestAnimationFrame(attempt);
  };
  attempt();
  return () => cancelAnimationFrame(request);
}

/**
 * The Graph view: palette, canvas and inspector over the same draft text as the JSON view.
 * Every edit goes through lib/workflow/edit-ops and lands in the
 * draft as definition JSON — the canvas never persists React Flow objects.
 */
export function GraphEditor({
  draft,
  readOnly,
  aside,
  asideSummary,
  handle,
  runStatuses,
}: {
  draft: Draft;
  readOnly: boolean;
  /** The problems list, in the drawer under the canvas. */
  aside: ReactNode;
  /** Shown in the Problems drawer's header (the counts), open or collapsed. */
  asideSummary?: ReactNode;
  handle: Ref<GraphEditorHandle>;
  /** A run's top-level step statuses, shown on the nodes. */
  runStatuses?: Readonly<Record<string, string>>;
}) {
  const definition =
    draft.parsed.ok && isGraphDraft(draft.parsed.definition)
      ? (draft.parsed.definition as GraphDefinition)
      : null;
  const [requestedPath, setLoopPath] = useState<readonly string[]>([]);
  const [focus, setFocus] = useState<{ id: string; n: number } | null>(null);
  // A loop deleted (or renamed) under the drill-in view falls back to the top level.
  const loopPath = definition && levelAt(definition, requestedPath) ? requestedPath : TOP_LEVEL;

  const selectElsewhere = useCallback(
    (id: string) => {
      const level = definition ? levelOf(definition, id) : undefined;
      if (!level) return;
      setLoopPath(level.loopPath);
      setFocus((f) => ({ id, n: (f?.n ?? 0) + 1 }));
    },
    [definition],
  );
  useImperativeHandle(
    handle,
    () => ({
      selectStep: selectElsewhere,
    }),
    [selectElsewhere],
  );

  if (!draft.parsed.ok || !definition) {
    return (
      <div className={`${styles.layout} ${styles.blocked}`}>
        <div className={`card ${styles.blockedCard}`} role="status">
          <h2>{draft.parsed.ok ? "Nothing to draw yet" : "The JSON does not parse"}</h2>
          <p>
            {draft.parsed.ok
              ? "The definition needs a steps array (each step with an id) before it can be drawn."
              : "Fix the JSON to edit visually."}{" "}
            <a href="?view=json">Open the JSON view</a>
          </p>
          {!draft.parsed.ok ? <code className="small">{draft.parsed.error}</code> : null}
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
    );
  }

  return (
    <ReactFlowProvider key={loopPath.join("/")}>
      <AutoLaidCanvas
        definition={definition}
        loopPath={loopPath}
        draft={draft}
        readOnly={readOnly}
        focus={focus}
        aside={aside}
        asideSummary={asideSummary}
        onOpenLevel={setLoopPath}
        onSelectElsewhere={selectElsewhere}
        runStatuses={runStatuses}
      />
    </ReactFlowProvider>
  );
}

interface LevelCanvasProps {
  definition: GraphDefinition;
  loopPath: readonly string[];
  draft: Draft;
  readOnly: boolean;
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

/** The level's canvas once its unplaced steps have ELK positions (a moment on first open). */
function AutoLaidCanvas(props: Omit<LevelCanvasProps, "autoPositions">) {
  const auto = useElkPositions(props.definition, props.loopPath);
  if (auto.isPending)
    return (
      <div className={styles.layout} role="status" aria-label="Laying out the graph">
        <div className={styles.center} />
      </div>
    );
  return <LevelCanvas {...props} autoPositions={auto.positions} />;
}

function LevelCanvas(props: LevelCanvasProps) {
  const {
    definition,
    loopPath,
    draft,
    readOnly,
    focus,
    aside,
    asideSummary,
    autoPositions,
    onOpenLevel,
    onSelectElsewhere,
  } = props;
  // Run statuses are by top-level step id; loop bodies (one graph for every iteration) show none.
  const runStatuses = loopPath.length ? NO_STATUSES : (props.runStatuses ?? NO_STATUSES);
  // The draft object is new on every render; its functions are stable.
  const { setDefinition, undo, redo } = draft;
  const rf = useReactFlow<CanvasNode, CanvasEdge>();
  const toast = useToast();
  const wrapper = useRef<HTMLDivElement>(null);
  const loopId = loopPath[loopPath.length - 1];
  // The canvas's size, for fitting the graph clear of the mini map.
  const [viewSize, setViewSize] = useState<Size>({ width: 0, height: 0 });
  useLayoutEffect(() => {
    const el = wrapper.current;
    if (!el) return;
    const read = () => setViewSize({ width: el.clientWidth, height: el.clientHeight });
    read();
    const observer = new ResizeObserver(read);
    observer.observe(el);
    return () => observer.disconnect();
  }, []);
  const levelKey = loopPath.join("/");

  // ---- derived graph ------------------------------------------------------------------------
  const level = useMemo(
    () => levelAt(definition, levelKey ? levelKey.split("/") : [])!,
    [definition, levelKey],
  );
  const positions = useMemo(
    () => ({ ...autoPositions, ...positionsOf(definition) }),
    [autoPositions, definition],
  );
  const flow = useMemo(() => toFlow(level, { positions } as Layout), [level, positions]);
  const counts = useMemo(() => issueCounts(draft.issues), [draft.issues]);
  const notes = useMemo(
    () => notesOf(definition).filter((n) => n.loop === loopId),
    [definition, loopId],
  );
  const [cache] = useState<NodeCache>(() => new Map());
  const derivedNodes = useMemo(
    () => buildNodes(flow, notes, counts, readOnly, cache, runStatuses),
    [flow, notes, counts, readOnly, cache, runStatuses],
  );
  const [edgeCache] = useState<EdgeCache>(() => new Map());
  const derivedEdges = useMemo(() => buildEdges(flow, edgeCache), [flow, edgeCache]);

  // ---- React Flow state (selection, sizes, drags) reconciled with each derivation -------------
  const initialSelect = focus ? new Set([focus.id]) : undefined;
  // Sizes React Flow reported, written as its changes arrive (see reconcileNodes).
  const [sizes] = useState(() => new Map<string, { width: number; height: number }>());
  const [nodes, setNodes] = useState<CanvasNode[]>(() =>
    reconcileNodes([], derivedNodes, initialSelect),
  );
  const [edges, setEdges] = useState<CanvasEdge[]>(derivedEdges);
  const [seen, setSeen] = useState({ nodes: derivedNodes, edges: derivedEdges });
  const [pendingSelect, setPendingSelect] = useState<ReadonlySet<string> | null>(null);
  const [handledFocus, setHandledFocus] = useState(focus?.n ?? 0);
  if (seen.nodes !== derivedNodes || seen.edges !== derivedEdges) {
    setSeen({ nodes: derivedNodes, edges: derivedEdges });
    // Functional updates, never values built from this render's `nodes`: React Flow reports
    // sizes from a ResizeObserver (a lower-priority update this render may skip), and a value
    // computed without them is replayed over them — the node loses `measured`, React Flow drops
    // its handle bounds, and edges to it stop drawing (the "lost edge" of issue 13).
    const select = pendingSelect ?? undefined;
    setNodes((ns) => reconcileNodes(ns, derivedNodes, select, sizes));
    setEdges((es) => reconcileEdges(es, derivedEdges, select ? new Set() : undefined));
    if (pendingSelect) setPendingSelect(null);
  }
  if (focus && focus.n !== handledFocus) {
    setHandledFocus(focus.n);
    setNodes((ns) => reconcileNodes(ns, ns, new Set([focus.id]), sizes));
    setEdges((es) => reconcileEdges(es, es, new Set()));
  }

  const selectedNodes = useMemo(() => nodes.filter((n) => n.selected), [nodes]);
  const fitOptions = useMemo(
    () => fitViewOptionsFor(graphSize(nodes), viewSize),
    [nodes, viewSize],
  );
  const fitOptionsRef = useRef(fitOptions);
  useLayoutEffect(() => {
    fitOptionsRef.current = fitOptions;
  });
  const selectedEdges = useMemo(() => edges.filter((e) => e.selected), [edges]);
  const selectedSteps = useMemo(
    () => selectedNodes.filter((n) => n.type !== "note").map((n) => n.id),
    [selectedNodes],
  );

  // Handlers read the latest state through one ref, so they (and the node context) are stable.
  const state = useRef({ definition, nodes, edges, level, loopId, readOnly, selectedSteps });
  useLayoutEffect(() => {
    state.current = { definition, nodes, edges, level, loopId, readOnly, selectedSteps };
  });
  // Edits build on the draft's latest definition, not the rendered one: two edits can land
  // before React renders (a connect and a drag end on one pointerup, two quick connects), and
  // the second must not be computed from a definition without the first (a lost edge).
  const { latest } = draft;
  const latestDefinition = useCallback((): GraphDefinition => {
    const d = latest();
    return d && isGraphDraft(d) ? (d as GraphDefinition) : state.current.definition;
  }, [latest]);

  // A drawn node that React Flow holds without handle bounds is measured again: edges to it are
  // not drawn until it is, and its DOM size may never change to trigger its ResizeObserver. The
  // cause seen (a node handed back without `measured`) is closed above; this is the backstop.
  const updateNodeInternals = useUpdateNodeInternals();
  useEffect(() => {
    const drawn = wrapper.current?.querySelectorAll<HTMLElement>(".react-flow__node[data-id]");
    const stale: string[] = [];
    for (const el of drawn ?? []) {
      const id = el.dataset.id!;
      const internal = rf.getInternalNode(id);
      if (internal && !internal.internals.handleBounds) stale.push(id);
    }
    if (stale.length) updateNodeInternals(stale);
  }, [nodes, rf, updateNodeInternals]);

  // Work for after the next render: centre on / focus a node, fit the view.
  const after = useRef<{ center?: string; focus?: string; fit?: boolean }>({});
  const cancelFocus = useRef<() => void>(() => {});
  useEffect(() => () => cancelFocus.current(), []);
  // A focus request (problems list, find in another level) centres on the step once drawn.
  useEffect(() => {
    if (focus) after.current.center = focus.id;
  }, [focus]);
  useEffect(() => {
    const todo = after.current;
    if (todo.fit) {
      todo.fit = false;
      void rf.fitView({ ...fitOptionsRef.current, duration: 200 });
    }
    if (todo.center) {
      const node = rf.getInternalNode(todo.center);
      if (node) {
        const { x, y } = node.internals.positionAbsolute;
        const w = node.measured.width ?? NODE_WIDTH;
        const h = node.measured.height ?? 60;
        void rf.setCenter(x + w / 2, y + h / 2, {
          zoom: Math.max(rf.getZoom(), 0.9),
          duration: 200,
        });
        todo.center = undefined;
      }
    }
    if (todo.focus && wrapper.current) {
      cancelFocus.current();
      cancelFocus.current = focusNodeWhenShown(wrapper.current, todo.focus);
      todo.focus = undefined;
    }
  });

  /**
   * Lands an edit in the draft. The first canvas edit also stores the auto-layout positions of
   * this level, so later edits never re-run the layout (and nothing jumps).
   */
  const commit = useCallback(
    (update: DefinitionUpdate, options?: EditOptions, select?: readonly string[]) => {
      const { nodes: current } = state.current;
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
    [latestDefinition, setDefinition],
  );

  // ---- node / edge changes ---------------------------------------------------------------------
  const onNodesChange = useCallback(
    (changes: NodeChange<CanvasNode>[]) => {
      for (const c of changes)
        if (c.type === "dimensions" && c.dimensions) sizes.set(c.id, c.dimensions);
        else if (c.type === "remove") sizes.delete(c.id);
      setNodes((ns) => withMeasured(applyNodeChanges(changes, ns), sizes));
      if (state.current.readOnly) return;
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
    [latestDefinition, commit, sizes],
  );
  const onEdgesChange = useCallback(
    (changes: EdgeChange<CanvasEdge>[]) => setEdges((es) => applyEdgeChanges(changes, es)),
    [],
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
      const { selectedSteps: sel, nodes: ns, loopId: inLoop } = state.current;
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
      after.current.center = result.id;
      after.current.focus = result.id;
    },
    [latestDefinition, commit, toast, loopPath],
  );

  const onDragOver = useCallback((e: DragEvent) => {
    if (!e.dataTransfer.types.includes(PALETTE_MIME)) return;
    e.preventDefault();
    e.dataTransfer.dropEffect = "copy";
  }, []);
  const onDrop = useCallback(
    (e: DragEvent) => {
      const type = e.dataTransfer.getData(PALETTE_MIME);
      if (!type || !isStepType(type) || state.current.readOnly) return;
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
    [latestDefinition, rf, loopPath, commit, toast],
  );

  // ---- delete, clipboard, duplicate -------------------------------------------------------------
  const deleteSelection = useCallback(() => {
    const { nodes: ns, edges: es } = state.current;
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
  }, [latestDefinition, commit, toast]);

  /** Positions for pasted steps: their originals shifted, else below the level. */
  const placePasted = useCallback(
    (def: Definition, ids: readonly string[], renamed: Record<string, string>) => {
      const { nodes: ns } = state.current;
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
    [latestDefinition],
  );

  const duplicate = useCallback(() => {
    const { selectedSteps: ids } = state.current;
    const def = latestDefinition();
    if (!ids.length) return;
    const r = duplicateSteps(def, ids);
    if (!r.ok) return toast(r.reason, "error");
    commit(placePasted(r.definition, r.ids, r.renamed), undefined, r.ids);
  }, [latestDefinition, commit, toast, placePasted]);

  useEffect(() => {
    const onCanvas = () => {
      const active = document.activeElement;
      return !!active && !!wrapper.current?.contains(active) && !isTextEntry(active);
    };
    const copy = (e: ClipboardEvent, cut: boolean) => {
      if (!onCanvas()) return;
      const { selectedSteps: ids, readOnly: ro } = state.current;
      const def = latestDefinition();
      if (!ids.length) return;
      e.clipboardData?.setData("text/plain", JSON.stringify(copySteps(def, ids), null, 2));
      e.preventDefault();
      if (cut && !ro) deleteSelection();
    };
    const onCopy = (e: ClipboardEvent) => copy(e, false);
    const onCut = (e: ClipboardEvent) => copy(e, true);
    const onPaste = (e: ClipboardEvent) => {
      if (!onCanvas() || state.current.readOnly) return;
      const text = e.clipboardData?.getData("text/plain") ?? "";
      let value: unknown;
      try {
        value = JSON.parse(text);
      } catch {
        toast("The clipboard does not hold step JSON.", "error");
        return;
      }
      const clip = readClipboard(value);
      e.preventDefault();
      if (!clip) return toast("The clipboard does not hold steps.", "error");
      const { loopId: into } = state.current;
      const def = latestDefinition();
      const r = pasteSteps(def, clip, into === undefined ? {} : { into });
      if (!r.ok) return toast(r.reason, "error");
      commit(placePasted(r.definition, r.ids, r.renamed), undefined, r.ids);
    };
    document.addEventListener("copy", onCopy);
    document.addEventListener("cut", onCut);
    document.addEventListener("paste", onPaste);
    return () => {
      document.removeEventListener("copy", onCopy);
      document.removeEventListener("cut", onCut);
      document.removeEventListener("paste", onPaste);
    };
  }, [latestDefinition, commit, deleteSelection, placePasted, toast]);

  // ---- layout, notes, levels ---------------------------------------------------------------------
  const autoLayout = useCallback(async () => {
    const { level: lvl } = state.current;
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
    const ids = new Set(state.current.level.steps.map((s) => s.id));
    const moves = Object.fromEntries(Object.entries(laid).filter(([id]) => ids.has(id)));
    commit(withPositions(latestDefinition(), moves));
    after.current.fit = true;
  }, [latestDefinition, commit]);

  const addStickyNote = useCallback(() => {
    const box = wrapper.current?.getBoundingClientRect();
    const centre = box
      ? rf.screenToFlowPosition({ x: box.left + box.width / 2, y: box.top + box.height / 2 })
      : { x: 0, y: 0 };
    const r = addNote(latestDefinition(), centre, state.current.loopId);
    commit(r.definition, undefined, [`${NOTE_PREFIX}${r.id}`]);
  }, [latestDefinition, rf, commit]);

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
      if (!event || state.current.loopId !== undefined || state.current.readOnly) return;
      setDefinition(withViewport(latestDefinition(), viewport), { silent: true });
    },
    [latestDefinition, setDefinition],
  );

  // ---- find, connect, help -------------------------------------------------------------------
  const [findOpen, setFindOpen] = useState(false);
  const [query, setQuery] = useState("");
  const matches = useMemo(() => findSteps(definition, query), [definition, query]);
  const [connecting, setConnecting] = useState<string | null>(null);
  const [helpOpen, setHelpOpen] = useState(false);

  const selectHere = useCallback(
    (ids: ReadonlySet<string>, edgeIds: ReadonlySet<string>) => {
      setNodes((ns) => reconcileNodes(ns, ns, ids, sizes));
      setEdges((es) => reconcileEdges(es, es, edgeIds));
    },
    [sizes],
  );

  const goTo = useCallback(
    (id: string) => {
      if (state.current.nodes.some((n) => n.id === id)) {
        selectHere(new Set([id]), new Set());
        after.current.center = id;
      } else onSelectElsewhere(id);
    },
    [selectHere, onSelectElsewhere],
  );

  const onKeyDown = useCallback(
    (e: KeyboardEvent) => {
      if (isTextEntry(e.target)) return;
      const action = canvasActionOf(e);
      if (!action) return;
      const ro = state.current.readOnly;
      switch (action) {
        case "undo":
        case "redo":
          if (ro) return;
          e.preventDefault();
          if (action === "undo") undo();
          else redo();
          return;
        case "duplicate":
          e.preventDefault();
          if (!ro) duplicate();
          return;
        case "find":
          e.preventDefault();
          setFindOpen(true);
          return;
        case "selectAll":
          e.preventDefault();
          selectHere(new Set(state.current.nodes.map((n) => n.id)), new Set());
          return;
        case "delete":
          e.preventDefault();
          if (!ro) deleteSelection();
          return;
        case "connect": {
          const sel = state.current.selectedSteps;
          if (ro || sel.length !== 1) return;
          e.preventDefault();
          setConnecting(sel[0]!);
          return;
        }
        case "help":
          e.preventDefault();
          setHelpOpen(true);
          return;
        case "escape":
          setFindOpen(false);
          selectHere(new Set(), new Set());
          return;
      }
    },
    [undo, redo, duplicate, deleteSelection, selectHere],
  );

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
        if (state.current.nodes.some((n) => n.id === sel.id)) goTo(sel.id);
        else setPendingSelect(new Set([sel.id]));
      } else selectHere(new Set(), new Set([flowEdgeId(sel.from, sel.port, sel.to)]));
    },
    [goTo, selectHere],
  );

  const connectFrom = connecting ? level.steps.find((s) => s.id === connecting) : undefined;
  const savedViewport = loopId === undefined ? viewportOf(definition) : undefined;

  return (
    <div className={styles.layout}>
      <CollapsiblePanel panel="palette" title="Steps" placement="left">
        <Palette onAdd={addAfterSelected} disabled={readOnly} />
      </CollapsiblePanel>
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
              <MiniMap pannable zoomable ariaLabel="Mini map" position="bottom-right" />
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
            after.current.focus = connectFrom.id;
          }}
        />
      ) : null}
      {helpOpen ? <ShortcutsDialog onClose={() => setHelpOpen(false)} /> : null}
    </div>
  );
}
