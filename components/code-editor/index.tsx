"use client";
import dynamic from "next/dynamic";
import styles from "./code-editor.module.css";

function EditorLoading() {
  return (
    <div className={`${styles.frame} ${styles.loading}`} role="status" aria-label="Loading editor">
      <span className="spinner" aria-hidden /> Loading editor…
    </div>
  );
}

/** Monaco is client-only and large: loaded on demand, with a visible loading state. */
export const JsonEditor = dynamic(() => import("./json-editor-impl"), {
  ssr: false,
  loading: EditorLoading,
});
export const DiffEditor = dynamic(() => import("./diff-editor-impl"), {
  ssr: false,
  loading: EditorLoading,
});
export const JsonViewer = dynamic(() => import("./json-viewer-impl"), {
  ssr: false,
  loading: EditorLoading,
});
export type { EditorMarker, JsonEditorHandle } from "./json-editor-impl";
export type { DiffEditorHandle } from "./diff-editor-impl";
