"use client";
import { useReactFlow, useUpdateNodeInternals } from "@xyflow/react";
import {
  useCallback,
  useEffect,
  useLayoutEffect,
  useMemo,
  useRef,
  useState,
  type RefObject,
} from "react";
import { NODE_HEIGHT, NODE_WIDTH } from "@/components/workflow-graph/layout";
import type { Layout } from "@/lib/workflow/definition";
import { levelAt, notesOf, positionsOf } from "@/lib/workflow/edit-ops";
import {
  buildEdges,
  buildNodes,
  issueCounts,
  reconcileEdges,
  reconcileNodes,
  type CanvasEdge,
  type CanvasNode,
  type EdgeCache,
  type NodeCache,
} from "./canvas-model";
import { useEditorPanel } from "./editor-panel";
import { toFlow } from "./flow-mapping";
import type { GraphDefinition, Positions } from "./level-canvas";
import { FIT_MARGIN, minimapClearPadding, type Size } from "./minimap-fit";
import type { Draft } from "./use-draft";

/**
 * The canvas's React Flow state kept in step with the definition: nodes and edges derived from
 * the level and reconciled with what React Flow holds (selection, measured sizes, drags), focus
 * requests, the fit that keeps the graph clear of the mini map, and work queued for after the
 * next render (centre on, focus or fit). Edits live in use-canvas-edits.ts.
 */

/** Fits the graph clear of the mini map when it is shown (see minimap-fit.ts); sizes in screen px. */
function fitViewOptionsFor(graph: Size, view: Size, hasMinimap: boolean) {
  const p = hasMinimap
    ? minimapClearPadding(graph, view)
    : { top: FIT_MARGIN, right: FIT_MARGIN, bottom: FIT_MARGIN, left: FIT_MARGIN };
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

export interface CanvasSyncInput {
  definition: GraphDefinition;
  loopPath: readonly string[];
  draft: Draft;
  readOnly: boolean;
  compact: boolean;
  focus: { id: string; n: number } | null;
  autoPositions: Positions;
  runStatuses: Readonly<Record<string, string>>;
  wrapper: RefObject<HTMLDivElement | null>;
}

/** Queued for after the next render. */
export interface AfterRender {
  center?: string;
  focus?: string;
  fit?: boolean;
}

export function useCanvasSync({
  definition,
  loopPath,
  draft,
  readOnly,
  compact,
  focus,
  autoPositions,
  runStatuses,
  wrapper,
}: CanvasSyncInput) {
  const rf = useReactFlow<CanvasNode, CanvasEdge>();
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
  }, [wrapper]);
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
  const [isMinimapOn, setMinimapOn] = useEditorPanel("minimap");
  const hasMinimap = isMinimapOn && !compact;
  const fitOptions = useMemo(
    () => fitViewOptionsFor(graphSize(nodes), viewSize, hasMinimap),
    [nodes, viewSize, hasMinimap],
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
  }, [nodes, rf, updateNodeInternals, wrapper]);

  // Work for after the next render: centre on / focus a node, fit the view.
  const after = useRef<AfterRender>({});
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

  const selectHere = useCallback(
    (ids: ReadonlySet<string>, edgeIds: ReadonlySet<string>) => {
      setNodes((ns) => reconcileNodes(ns, ns, ids, sizes));
      setEdges((es) => reconcileEdges(es, es, edgeIds));
    },
    [sizes],
  );

  // Stable accessors for the hooks beside this one (a ref passed along cannot be written).
  const getState = useCallback(() => state.current, []);
  const queueAfter = useCallback((todo: AfterRender) => {
    Object.assign(after.current, todo);
  }, []);

  return {
    level,
    loopId,
    nodes,
    setNodes,
    edges,
    setEdges,
    sizes,
    setPendingSelect,
    selectedNodes,
    selectedEdges,
    selectedSteps,
    selectHere,
    getState,
    queueAfter,
    fitOptions,
    isMinimapOn,
    setMinimapOn,
    hasMinimap,
  };
}

export type CanvasSync = ReturnType<typeof useCanvasSync>;
