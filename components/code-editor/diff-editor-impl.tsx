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

type SideLabels = { before: string; after: string };

/**
 * Names the two sides' text inputs, and names them again whenever Monaco resets them. Monaco
 * 0.57's diff editor rebuilds each side's options from the options that just changed, and then
 * sets ariaLabel to "" unless originalAriaLabel / modifiedAriaLabel are among them: at creation
 * here, and again on its own relayouts (a width change re-runs that step with no options at all).
 * axe caught both inputs unnamed on the proposal review (Chromium 156, where the input is the
 * EditContext div, `aria-input-field-name`).
 */
function keepSidesNamed(editor: DiffEditorInstance, labels: () => SideLabels) {
  const sides = [
    [editor.getOriginalEditor(), "before"],
    [editor.getModifiedEditor(), "after"],
  ] as const;
  for (const [side, which] of sides) {
    let disposed = false;
    side.onDidDispose(() => {
      disposed = true;
    });
    const name = () => {
      if (disposed) return;
      const want = labels()[which];
      if (side.getRawOptions().ariaLabel !== want) side.updateOptions({ ariaLabel: want });
    };
    name();
    // Deferred: not inside Monaco's own configuration-change dispatch.
    side.onDidChangeConfiguration(() => queueMicrotask(name));
  }
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

  // Memoised: the wrapper calls updateOptions whenever this object's identity changes.
  const labels = useMemo<SideLabels>(
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
  const labelsRef = useRef(labels);
  useEffect(() => {
    labelsRef.current = labels;
  }, [labels]);

  const onMount: DiffOnMount = (editor) => {
    const holder = owned.current;
    holder.editor = editor;
    holder.models = editor.getModel();
    holder.disposed = false;
    keepSidesNamed(editor, () => labelsRef.current);
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
