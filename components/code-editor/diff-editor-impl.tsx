"use client";
import { DiffEditor, type DiffOnMount } from "@monaco-editor/react";
import { useEffect, useRef } from "react";
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

  const onMount: DiffOnMount = (editor) => {
    const holder = owned.current;
    holder.editor = editor;
    holder.models = editor.getModel();
    holder.disposed = false;
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
        options={{
          readOnly: true,
          originalEditable: false,
          renderSideBySide: true,
          minimap: { enabled: false },
          fontSize: 13,
          automaticLayout: true,
          scrollBeyondLastLine: false,
          ariaLabel,
          // Each side is its own text input (and the inline view on a phone keeps both): name them.
          originalAriaLabel: `${ariaLabel}: before`,
          modifiedAriaLabel: `${ariaLabel}: after`,
          hideUnchangedRegions: { enabled: hideUnchangedRegions },
        }}
      />
    </div>
  );
}
