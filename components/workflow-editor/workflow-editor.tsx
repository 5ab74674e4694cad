"use client";
import { useMemo, useRef, useState, type MouseEvent } from "react";
import { JsonEditor, type JsonEditorHandle } from "@/components/code-editor";
import { useRole } from "@/components/shell/role-context";
import { LoadingRows } from "@/components/ui/states";
import { GraphEditor, type GraphEditorHandle } from "./graph-editor";
import { RunOverlayBanner, useRunOverlay } from "./run-overlay";
import { TestRunProvider } from "./test-run/test-run-context";
import { useDraft, type SaveState } from "./use-draft";
import { RecordingSuggestions } from "@/components/workflows/recording-suggestions";
import { workflowJsonSchema } from "@/lib/workflow";
import { ProposeChangeDialog } from "@/components/proposals/propose-change-dialog";
import { IssueCounts, IssueList, type EditorIssue } from "@/components/workflows/issue-list";
import { PublishDialog } from "@/components/workflows/publish-dialog";
import { useWorkflow } from "@/components/workflows/use-workflow";
import { useIsNarrowScreen } from "./narrow-screen";
import styles from "./workflow-editor.module.css";

type View = "json" | "graph";

/**
 * The definition editor: a Graph view (palette, canvas, inspector) and a JSON view (Monaco wired
 * to the generated JSON Schema plus the validator's issues), both editing one draft text, so
 * switching never loses an edit. Drafts autosave (any JSON is accepted); publishing validates
 * on the server.
 */
export function WorkflowEditor({
  workflowId,
  view,
  runId = null,
}: {
  workflowId: string;
  view: View;
  runId?: string | null;
}) {
  const wf = useWorkflow(workflowId);
  if (wf.isPending)
    return (
      <div className={`card ${styles.loading}`}>
        <LoadingRows rows={6} label="Loading definition" />
      </div>
    );
  if (!wf.data) return null;
  return (
    <LoadedEditor
      key={workflowId}
      workflowId={workflowId}
      view={view}
      runId={runId}
      initial={{
        text: JSON.stringify(wf.data.draft, null, 2),
        revision: wf.data.draftRevision,
        savedAt: wf.data.draftUpdatedAt,
      }}
      currentVersion={wf.data.currentVersion?.version ?? null}
      currentHash={wf.data.currentVersion?.hash ?? null}
    />
  );
}

function LoadedEditor({
  workflowId,
  view: initialView,
  runId: initialRunId,
  initial,
  currentVersion,
  currentHash,
}: {
  workflowId: string;
  view: View;
  runId: string | null;
  initial: { text: string; revision: number; savedAt: Date };
  currentVersion: string | null;
  currentHash: string | null;
}) {
  const { can } = useRole();
  // A phone-sized window shows the workflow read-only: no palette, no inspector, no Publish.
  const isNarrow = useIsNarrowScreen();
  const readOnly = !can("editor") || isNarrow;
  const draft = useDraft({ workflowId, initial, readOnly });
  const { parsed, issues, draftHash, save, dirty, doSave } = draft;
  const [view, setView] = useState<View>(initialView);
  const [publishing, setPublishing] = useState(false);
  const [proposing, setProposing] = useState(false);
  // The version this editing session's draft is based on: kept when someone else publishes
  // meanwhile (a proposal from here must then be refused as stale, not silently rebased).
  const [draftBase, setDraftBase] = useState(currentHash);
  const editor = useRef<JsonEditorHandle | null>(null);
  const graph = useRef<GraphEditorHandle | null>(null);
  const schema = useMemo(() => workflowJsonSchema(), []);
  const [runId, setRunId] = useState(initialRunId);
  const overlay = useRunOverlay(runId);
  const hideRun = () => {
    const url = new URL(window.location.href);
    url.searchParams.delete("run");
    window.history.replaceState(null, "", url);
    setRunId(null);
  };

  // The view lives in the URL (`?view=json`) without a server round trip: the draft state stays.
  const switchView = (next: View) => (e: MouseEvent) => {
    e.preventDefault();
    const url = new URL(window.location.href);
    if (next === "graph") url.searchParams.delete("view");
    else url.searchParams.set("view", next);
    window.history.replaceState(null, "", url);
    setView(next);
  };

  const errorCount = issues.filter((i) => i.severity === "error").length;
  // Publishing was only blocked by errors, so an unchanged draft opened the dialog for a no-op.
  // The live text's hash, not workflow.get's hasDraftChanges, which lags behind unsaved edits.
  const isUnchanged = draftHash !== null && draftHash === currentHash;
  const publishBlocked = errorCount
    ? "Fix the problems listed below first"
    : isUnchanged
      ? `The draft is identical to v${currentVersion}`
      : undefined;

  const onIssue = (i: EditorIssue) => {
    if (view === "graph") {
      if (i.stepId) graph.current?.selectStep(i.stepId);
    } else editor.current?.revealPath(i.path);
  };

  return (
    <div className={styles.layout}>
      <div className={styles.toolbar}>
        <nav className={`row ${styles.viewSwitch}`} aria-label="Editor view">
          <a
            href="?view=graph"
            className={view === "graph" ? "badge badge-accent" : "badge"}
            aria-current={view === "graph" ? "page" : undefined}
            onClick={switchView("graph")}
          >
            Graph
          </a>
          <a
            href="?view=json"
            className={view === "json" ? "badge badge-accent" : "badge"}
            aria-current={view === "json" ? "page" : undefined}
            onClick={switchView("json")}
          >
            JSON
          </a>
        </nav>
        <div className="row">
          <SaveIndicator state={save} />
          {!readOnly ? (
            <>
              <button
                type="button"
                className="btn"
                onClick={() => void doSave()}
                disabled={!dirty || !parsed.ok || save.kind === "saving"}
              >
                Save draft
              </button>
              <button
                type="button"
                className="btn btn-primary"
                disabled={
                  publishBlocked !== undefined || save.kind === "saving" || save.kind === "conflict"
                }
                title={publishBlocked}
                onClick={async () => {
                  await doSave();
                  setPublishing(true);
                }}
              >
                Publish…
              </button>
              {currentVersion ? (
                <button
                  type="button"
                  className="btn"
                  disabled={!parsed.ok || save.kind === "saving" || save.kind === "conflict"}
                  title={
                    parsed.ok
                      ? `Ask for a review of the draft as a change to v${currentVersion}`
                      : "Fix the JSON first"
                  }
                  onClick={async () => {
                    await doSave();
                    setProposing(true);
                  }}
                >
                  Propose change…
                </button>
              ) : null}
            </>
          ) : (
            <span className="badge">read-only</span>
          )}
        </div>
      </div>
      {save.kind === "conflict" ? (
        <div className="callout callout-warn" role="alert">
          {save.message}{" "}
          <button type="button" className="btn btn-sm" onClick={() => void draft.reloadTheirs()}>
            Reload theirs
          </button>{" "}
          <button type="button" className="btn btn-sm" onClick={() => void draft.keepMine()}>
            Keep mine (overwrite)
          </button>
        </div>
      ) : null}
      {isNarrow ? (
        <p className={`callout ${styles.narrow}`} role="status">
          Editing needs a wider screen; showing the workflow read-only.
        </p>
      ) : null}
      <RunOverlayBanner overlay={overlay} onClose={hideRun} />
      <RecordingSuggestions workflowId={workflowId} draft={draft} readOnly={readOnly} />
      {view === "graph" ? (
        <div className={styles.graph}>
          <TestRunProvider
            workflowId={workflowId}
            readOnly={readOnly}
            definition={parsed.ok ? (parsed.definition as Record<string, unknown> | null) : null}
          >
            <GraphEditor
              draft={draft}
              readOnly={readOnly}
              compact={isNarrow}
              aside={<IssueList issues={issues} onSelect={onIssue} embedded />}
              asideSummary={<IssueCounts issues={issues} />}
              handle={graph}
              runStatuses={overlay.statuses}
            />
          </TestRunProvider>
        </div>
      ) : (
        <div className={styles.main}>
          <JsonEditor
            value={draft.text}
            onChange={(text) => draft.setText(text, { key: "json" })}
            schema={schema}
            readOnly={readOnly}
            markers={issues.map((i) => ({
              path: i.path,
              message: i.message,
              severity: i.severity,
            }))}
            onReady={(h) => {
              editor.current = h;
            }}
            height="100%"
          />
          <IssueList issues={issues} onSelect={onIssue} />
        </div>
      )}
      <PublishDialog
        open={publishing}
        onClose={() => setPublishing(false)}
        workflowId={workflowId}
        draftRevision={draft.savedRevision}
        currentVersion={currentVersion}
        warnings={issues.filter((i) => i.severity === "warning")}
        onPublished={setDraftBase}
      />
      <ProposeChangeDialog
        open={proposing}
        onClose={() => setProposing(false)}
        workflowId={workflowId}
        definition={parsed.ok ? parsed.value : null}
        baseHash={draftBase}
      />
    </div>
  );
}

function SaveIndicator({ state }: { state: SaveState }) {
  switch (state.kind) {
    case "saved":
      return (
        <span className="small muted" role="status">
          All changes saved
        </span>
      );
    case "dirty":
      return (
        <span className="small muted" role="status">
          Unsaved changes…
        </span>
      );
    case "saving":
      return (
        <span className="small muted" role="status">
          <span className="spinner" aria-hidden /> Saving…
        </span>
      );
    case "error":
      return (
        <span className="small" style={{ color: "var(--danger)" }} role="alert">
          Not saved: {state.message}
        </span>
      );
    case "conflict":
      return (
        <span className="small" style={{ color: "var(--danger)" }}>
          Conflict
        </span>
      );
  }
}
