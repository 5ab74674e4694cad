"use client";
import "@xyflow/react/dist/style.css";
import { ReactFlowProvider } from "@xyflow/react";
import {
  useCallback,
  useEffect,
  useImperativeHandle,
  useLayoutEffect,
  useRef,
  useState,
  type ReactNode,
  type Ref,
} from "react";
import { ELK_MAX_STEPS, elkPositions } from "@/components/workflow-graph/elk-layout";
import {
  isGraphDraft,
  levelAt,
  levelOf,
  positionsOf,
  resolvedEdges,
} from "@/lib/workflow/edit-ops";
import { CollapsiblePanel } from "./editor-panel";
import styles from "./graph-editor.module.css";
import {
  LevelCanvas,
  type GraphDefinition,
  type LevelCanvasProps,
  type Positions,
} from "./level-canvas";
import type { Draft } from "./use-draft";

export interface GraphEditorHandle {
  /** Shows the step's level, selects it and centres it (problems list, find). */
  selectStep(id: string): void;
}

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

/**
 * The Graph view: palette, canvas and inspector over the same draft text as the JSON view.
 * Every edit goes through lib/workflow/edit-ops and lands in the
 * draft as definition JSON — the canvas never persists React Flow objects.
 */
export function GraphEditor({
  draft,
  readOnly,
  compact = false,
  aside,
  asideSummary,
  handle,
  runStatuses,
}: {
  draft: Draft;
  readOnly: boolean;
  /** A narrow window: the canvas alone (no palette, inspector or mini map), read-only. */
  compact?: boolean;
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
        compact={compact}
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
