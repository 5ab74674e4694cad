"use client";
import Editor, { type OnMount } from "@monaco-editor/react";
import { useEffect, useRef } from "react";
import { monaco, MONACO_THEME } from "./monaco-env";
import { locateJsonPath, type JsonPath } from "@/lib/json-locate";
import styles from "./code-editor.module.css";

export interface EditorMarker {
  path: JsonPath;
  message: string;
  severity: "error" | "warning";
}

export interface JsonEditorHandle {
  revealPath(path: JsonPath): void;
  focus(): void;
}

const SCHEMA_URI = "sluice://schemas/workflow.json";

/**
 * Monaco JSON editor wired to a JSON Schema (completion, hover docs, inline schema errors) plus
 * markers from Sluice's own validator (graph and reference rules the schema cannot express).
 */
export default function JsonEditorImpl({
  value,
  onChange,
  schema,
  markers = [],
  readOnly,
  height = "60vh",
  modelPath = "sluice://workflow/draft.json",
  onReady,
  ariaLabel = "Workflow definition (JSON)",
}: {
  value: string;
  onChange?: (v: string) => void;
  schema?: object;
  markers?: EditorMarker[];
  readOnly?: boolean;
  height?: string;
  modelPath?: string;
  onReady?: (handle: JsonEditorHandle) => void;
  ariaLabel?: string;
}) {
  const editorRef = useRef<Parameters<OnMount>[0] | null>(null);

  useEffect(() => {
    if (!schema) return;
    monaco.json.jsonDefaults.setDiagnosticsOptions({
      validate: true,
      allowComments: false,
      enableSchemaRequest: false,
      schemas: [{ uri: SCHEMA_URI, fileMatch: [modelPath], schema }],
    });
  }, [schema, modelPath]);

  useEffect(() => {
    const editor = editorRef.current;
    const model = editor?.getModel();
    if (!editor || !model) return;
    const text = model.getValue();
    monaco.editor.setModelMarkers(
      model,
      "sluice",
      markers.map((m) => {
        const range = locateJsonPath(text, m.path);
        const start = model.getPositionAt(range.offset);
        const end = model.getPositionAt(range.offset + Math.max(1, range.length));
        return {
          message: m.message,
          severity:
            m.severity === "error" ? monaco.MarkerSeverity.Error : monaco.MarkerSeverity.Warning,
          startLineNumber: start.lineNumber,
          startColumn: start.column,
          endLineNumber: end.lineNumber,
          endColumn: end.column,
        };
      }),
    );
  }, [markers, value]);

  const onMount: OnMount = (editor) => {
    editorRef.current = editor;
    onReady?.({
      focus: () => editor.focus(),
      revealPath: (path) => {
        const model = editor.getModel();
        if (!model) return;
        const range = locateJsonPath(model.getValue(), path);
        const start = model.getPositionAt(range.offset);
        const end = model.getPositionAt(range.offset + Math.max(1, range.length));
        editor.setSelection({
          startLineNumber: start.lineNumber,
          startColumn: start.column,
          endLineNumber: end.lineNumber,
          endColumn: end.column,
        });
        editor.revealRangeInCenter({
          startLineNumber: start.lineNumber,
          startColumn: start.column,
          endLineNumber: end.lineNumber,
          endColumn: end.column,
        });
        editor.focus();
      },
    });
  };

  return (
    <div className={styles.frame} style={{ height }} data-testid="json-editor">
      <Editor
        height="100%"
        theme={MONACO_THEME}
        language="json"
        path={modelPath}
        value={value}
        onChange={(v) => onChange?.(v ?? "")}
        onMount={onMount}
        options={{
          readOnly,
          minimap: { enabled: false },
          fontSize: 13,
          tabSize: 2,
          scrollBeyondLastLine: false,
          automaticLayout: true,
          ariaLabel,
          fixedOverflowWidgets: true,
          quickSuggestions: { strings: true, other: true, comments: false },
        }}
      />
    </div>
  );
}
