"use client";
import { useMutation, useQueryClient } from "@tanstack/react-query";
import { useCallback, useEffect, useMemo, useRef, useState } from "react";
import { JsonEditor, type JsonEditorHandle } from "@/components/code-editor";
import { useRole } from "@/components/shell/role-context";
import { LoadingRows } from "@/components/ui/states";
import { useTRPC } from "@/lib/trpc/client";
import { hashNormalizedDefinition, validateDefinition, workflowJsonSchema } from "@/lib/workflow";
import { ProposeChangeDialog } from "@/components/proposals/propose-change-dialog";
import { IssueList, type EditorIssue } from "./issue-list";
import { PublishDialog } from "./publish-dialog";
import { useWorkflow } from "./use-workflow";

type SaveState =
  | { kind: "saved"; at: Date }
  | { kind: "dirty" }
  | { kind: "saving" }
  | { kind: "error"; message: string }
  | { kind: "conflict"; message: string };

const AUTOSAVE_MS = 1200;

/**
 * The definition editor. The JSON view is Monaco wired to the generated JSON Schema plus the
 * validator's issues (with jump-to-location); drafts autosave (any JSON is accepted); publishing
 * validates on the server. The visual graph editor slots in as a second view.
 */
export function WorkflowEditor({
  workflowId,
  view,
}: {
  workflowId: string;
  view: "json" | "graph";
}) {
  const wf = useWorkflow(workflowId);
  if (wf.isPending)
    return (
      <div className="card">
        <LoadingRows rows={6} label="Loading definition" />
      </div>
    );
  if (!wf.data) return null;
  return (
    <LoadedEditor
      key={workflowId}
      workflowId={workflowId}
      view={view}
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
  initial,
  currentVersion,
  currentHash,
}: {
  workflowId: string;
  view: "json" | "graph";
  initial: { text: string; revision: number; savedAt: Date };
  currentVersion: string | null;
  currentHash: string | null;
}) {
  const trpc = useTRPC();
  const qc = useQueryClient();
  const { can } = useRole();
  const readOnly = !can("editor");
  const [text, setText] = useState(initial.text);
  const [save, setSave] = useState<SaveState>({ kind: "saved", at: initial.savedAt });
  const [publishing, setPublishing] = useState(false);
  const [proposing, setProposing] = useState(false);
  // What the server has: the text last saved and its draft revision.
  const [saved, setSaved] = useState({ text: initial.text, revision: initial.revision });
  const editor = useRef<JsonEditorHandle | null>(null);
  const schema = useMemo(() => workflowJsonSchema(), []);

  const parsed = useMemo(() => {
    try {
      return { ok: true as const, value: JSON.parse(text) as unknown };
    } catch (e) {
      return { ok: false as const, error: (e as Error).message };
    }
  }, [text]);
  const { issues, draftHash } = useMemo((): {
    issues: EditorIssue[];
    draftHash: string | null;
  } => {
    if (!parsed.ok)
      return {
        issues: [
          {
            severity: "error",
            code: "JSON_SYNTAX",
            message: `Not valid JSON: ${parsed.error}`,
            path: [],
          },
        ],
        draftHash: null,
      };
    const result = validateDefinition(parsed.value);
    // Hashed exactly as publishing does (lib/workflow/hash.ts is isomorphic), so the editor knows
    // "identical to the current version" before the server would answer "unchanged".
    return {
      issues: result.issues,
      draftHash:
        result.ok && result.definition ? hashNormalizedDefinition(result.definition) : null,
    };
  }, [parsed]);

  const saveDraft = useMutation(trpc.workflow.saveDraft.mutationOptions());
  const doSave = useCallback(async () => {
    if (readOnly || !parsed.ok || text === saved.text) return;
    setSave({ kind: "saving" });
    try {
      const res = await saveDraft.mutateAsync({
        workflowId,
        definition: parsed.value,
        baseRevision: saved.revision,
      });
      setSaved({ text, revision: res.revision });
      setSave({ kind: "saved", at: new Date(res.savedAt) });
      void qc.invalidateQueries({ queryKey: trpc.workflow.get.queryKey({ workflowId }) });
    } catch (e) {
      const err = e as { message: string; data?: { code?: string } };
      setSave(
        err.data?.code === "CONFLICT"
          ? { kind: "conflict", message: err.message }
          : { kind: "error", message: err.message },
      );
    }
  }, [readOnly, parsed, text, saved, saveDraft, workflowId, qc, trpc]);

  useEffect(() => {
    if (text === saved.text || !parsed.ok || readOnly) return;
    const t = setTimeout(() => void doSave(), AUTOSAVE_MS);
    return () => clearTimeout(t);
  }, [text, saved.text, parsed.ok, readOnly, doSave]);

  const dirty = text !== saved.text;
  useEffect(() => {
    if (!dirty) return;
    const onUnload = (e: BeforeUnloadEvent) => e.preventDefault();
    window.addEventListener("beforeunload", onUnload);
    return () => window.removeEventListener("beforeunload", onUnload);
  }, [dirty]);

  const errorCount = issues.filter((i) => i.severity === "error").length;
  // Publishing was only blocked by errors, so an unchanged draft opened the dialog for a no-op.
  // The live text's hash, not workflow.get's hasDraftChanges, which lags behind unsaved edits.
  const isUnchanged = draftHash !== null && draftHash === currentHash;
  const publishBlocked = errorCount
    ? "Fix the problems listed below first"
    : isUnchanged
      ? `The draft is identical to v${currentVersion}`
      : undefined;

  return (
    <div className="editor-layout">
      <div className="editor-toolbar">
        <div className="row" role="tablist" aria-label="Editor view">
          <span className="badge badge-accent" role="tab" aria-selected="true">
            JSON
          </span>
        </div>
        <div className="row">
          <SaveIndicator state={dirty && save.kind === "saved" ? { kind: "dirty" } : save} />
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
          <button type="button" className="btn btn-sm" onClick={() => window.location.reload()}>
            Reload
          </button>
        </div>
      ) : null}
      <div className="editor-main">
        <JsonEditor
          value={text}
          onChange={setText}
          schema={schema}
          readOnly={readOnly}
          markers={issues.map((i) => ({ path: i.path, message: i.message, severity: i.severity }))}
          onReady={(h) => {
            editor.current = h;
          }}
          height="calc(100vh - 300px)"
        />
        <IssueList issues={issues} onSelect={(i) => editor.current?.revealPath(i.path)} />
      </div>
      <PublishDialog
        open={publishing}
        onClose={() => setPublishing(false)}
        workflowId={workflowId}
        draftRevision={saved.revision}
        currentVersion={currentVersion}
      />
      <ProposeChangeDialog
        open={proposing}
        onClose={() => setProposing(false)}
        workflowId={workflowId}
        definition={parsed.ok ? parsed.value : null}
        baseHash={currentHash}
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
