"use client";
import { DiffEditor } from "@monaco-editor/react";
import "./monaco-env";

/** Monaco's side-by-side diff editor, read-only. */
export default function DiffEditorImpl({
  original,
  modified,
  height = "60vh",
  language = "json",
}: {
  original: string;
  modified: string;
  height?: string;
  language?: string;
}) {
  return (
    <div className="code-editor" style={{ height }} data-testid="diff-editor">
      <DiffEditor
        height="100%"
        language={language}
        original={original}
        modified={modified}
        options={{
          readOnly: true,
          renderSideBySide: true,
          minimap: { enabled: false },
          fontSize: 13,
          automaticLayout: true,
          scrollBeyondLastLine: false,
        }}
      />
    </div>
  );
}
