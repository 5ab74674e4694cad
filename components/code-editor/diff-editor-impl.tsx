"use client";
import { DiffEditor, type DiffOnMount } from "@monaco-editor/react";
import { useEffect, useMemo, useRef } from "react";
import { MONACO_THEME } from "./monaco-env";
import styles from "./code-editor.module.css";

type DiffEditorInstance = Parameters<DiffOnMount>[0];
type DiffModels = NonNullable<ReturnType<DiffEditorInstance["getModel"]>>;

export interface DiffEditorHandle {
  /** Moves the cursor to the next / previous change and reveals it (Monaco's goToDiff). */
  goToDiff(target: "next" | "previous"): void;
  focus(): void;
}

/**
 * Monaco's diff editor, read-only. It owns its two text models: @monaco-editor/react disposes the
 * models BEFORE the widget on unmount, which makes Monaco throw "TextModel got disposed before
 * DiffEditorWidget model got reset". So the wrapper keeps the models, and this component detaches
 * them from the widget (`setModel(null)`) before disposing them, whichever cleanup runs first.
 */
/** Names the two sides' text inputs (Monaco leaves them unnamed, see below). */
function nameSides(editor: DiffEditorInstance, labels: { before: string; after: string }) {
  editor.getOriginalEditor().updateOptions({ ariaLabel: labels.before });
  editor.getModifiedEditor().updateOptions({ ariaLabel: labels.after });
}

export default function DiffEditorImpl({
  original,
  modified,
  height = "60vh",
  language = "json",
  hideUnchangedRegions = false,
  ariaLabel = "Differences",
  onReady,
  onChangeCount,
}: {
  original: string;
  modified: string;
  height?: string;
  language?: string;
  /** Collapse runs of unchanged lines (expandable in place). */
  hideUnchangedRegions?: boolean;
  ariaLabel?: string;
  onReady?: (handle: DiffEditorHandle) => void;
  /** Number of changed line ranges, each time Monaco finishes computing the diff. */
  onChangeCount?: (count: number) => void;
}) {
  // One mutable holder per mount, read by the unmount cleanup below.
  const owned = useRef<{
    editor: DiffEditorInstance | null;
    models: DiffModels | null;
    disposed: boolean;
  }>({ editor: null, models: null, disposed: false });
  const onChangeCountRef = useRef(onChangeCount);
  useEffect(() => {
    onChangeCountRef.current = onChangeCount;
  }, [onChangeCount]);

  useEffect(() => {
    const holder = owned.current;
    return () => {
      const { editor, models } = holder;
      if (editor && !holder.disposed) editor.setModel(null);
      models?.original.dispose();
      models?.modified.dispose();
      holder.editor = null;
      holder.models = null;
    };
  }, []);

  // Monaco 0.57's diff editor leaves both sides' text inputs unnamed (aria-label ""): it builds
  // each side's ariaLabel from originalAriaLabel/modifiedAriaLabel only when they are among the
  // options it was just given, and it was not the case at creation here (axe caught it in
  // Chromium 156, where the input is the EditContext div). So each side is named on mount and
  // again after any change of options. Memoised: the wrapper calls updateOptions whenever this
  // object's identity changes.
  const labels = useMemo(
    () => ({ before: `${ariaLabel}: before`, after: `${ariaLabel}: after` }),
    [ariaLabel],
  );
  const options = useMemo(
    () => ({
      readOnly: true,
      originalEditable: false,
      renderSideBySide: true,
      minimap: { enabled: false },
      fontSize: 13,
      automaticLayout: true,
      scrollBeyondLastLine: false,
      ariaLabel,
      // Each side is its own text input (and the inline view on a phone keeps both): name them.
      originalAriaLabel: labels.before,
      modifiedAriaLabel: labels.after,
      hideUnchangedRegions: { enabled: hideUnchangedRegions },
    }),
    [ariaLabel, labels, hideUnchangedRegions],
  );
  // After any real change of options (this runs after the wrapper's own updateOptions).
  const labelsRef = useRef(labels);
  useEffect(() => {
    labelsRef.current = labels;
    const editor = owned.current.editor;
    if (editor && !owned.current.disposed) nameSides(editor, labels);
  }, [options, labels]);

  const onMount: DiffOnMount = (editor) => {
    const holder = owned.current;
    holder.editor = editor;
    holder.models = editor.getModel();
    holder.disposed = false;
    nameSides(editor, labelsRef.current);
    editor.onDidDispose(() => {
      holder.disposed = true;
    });
    editor.onDidUpdateDiff(() => {
      onChangeCountRef.current?.(editor.getLineChanges()?.length ?? 0);
    });
    onReady?.({
      goToDiff: (target) => {
        editor.getModifiedEditor().focus();
        editor.goToDiff(target);
      },
      focus: () => editor.getModifiedEditor().focus(),
    });
  };

  return (
    <div className={styles.frame} style={{ height }} data-testid="diff-editor">
      <DiffEditor
        height="100%"
        language={language}
        theme={MONACO_THEME}
        original={original}
        modified={modified}
        keepCurrentOriginalModel
        keepCurrentModifiedModel
        onMount={onMount}
        options={options}
      />
    </div>
  );
}
