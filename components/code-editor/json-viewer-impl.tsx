"use client";
import Editor, { type OnMount } from "@monaco-editor/react";
import { useDeferredValue, useEffect, useId, useMemo, useRef, useState } from "react";
import { MONACO_THEME } from "./monaco-env";
import styles from "./json-viewer.module.css";
import frame from "./code-editor.module.css";

type Instance = Parameters<OnMount>[0];
const MAX_MATCHES = 5000;

/**
 * A large JSON value, read-only, in Monaco: it renders only the visible lines (a 1 MB output
 * stays responsive), folds objects and arrays (by indentation, on the main thread, so folding
 * does not wait for the JSON worker), and a search box finds keys and values (Ctrl+F works too).
 */
export default function JsonViewerImpl({
  text,
  label,
  height = "50vh",
}: {
  text: string;
  label: string;
  height?: string;
}) {
  const id = useId();
  const [editor, setEditor] = useState<Instance | null>(null);
  const decorations = useRef<ReturnType<Instance["createDecorationsCollection"]> | null>(null);
  const [query, setQuery] = useState("");
  const deferred = useDeferredValue(query);
  const [current, setCurrent] = useState(0);
  // Every match of the query (capped).
  const matches = useMemo(() => {
    const model = editor?.getModel();
    // The model holds `text`: matches are found again when it changes.
    if (!model || !deferred || !text) return [];
    return model.findMatches(deferred, false, false, false, null, false, MAX_MATCHES);
  }, [deferred, editor, text]);
  const count = matches.length;
  const index = count ? Math.min(current, count - 1) : 0;

  // Highlights the matches in the editor and reveals the current one.
  useEffect(() => {
    if (!editor) return;
    decorations.current?.clear();
    decorations.current = editor.createDecorationsCollection(
      matches.map((m) => ({ range: m.range, options: { inlineClassName: styles.match } })),
    );
    const at = matches[index];
    if (at) {
      editor.setSelection(at.range);
      editor.revealRangeInCenter(at.range);
    }
  }, [editor, matches, index]);

  const step = (by: number) => setCurrent((c) => (count ? (c + by + count) % count : 0));
  const fold = (action: "editor.foldAll" | "editor.unfoldAll") =>
    void editor?.getAction(action)?.run();

  return (
    <div className={styles.viewer}>
      <div className={styles.bar} role="search" aria-label={`Search ${label}`}>
        <input
          type="search"
          aria-label={`Search ${label}`}
          placeholder="Search keys and values"
          value={query}
          onChange={(e) => {
            setQuery(e.target.value);
            setCurrent(0);
          }}
          onKeyDown={(e) => {
            if (e.key === "Enter") step(e.shiftKey ? -1 : 1);
          }}
        />
        <span className="small muted" role="status" aria-live="polite">
          {!deferred
            ? ""
            : count === 0
              ? "No matches"
              : `${index + 1} of ${count >= MAX_MATCHES ? `${MAX_MATCHES}+` : count} matches`}
        </span>
        <button type="button" className="btn btn-sm" disabled={!count} onClick={() => step(-1)}>
          Previous
        </button>
        <button type="button" className="btn btn-sm" disabled={!count} onClick={() => step(1)}>
          Next
        </button>
        <button type="button" className="btn btn-sm" onClick={() => fold("editor.foldAll")}>
          Fold all
        </button>
        <button type="button" className="btn btn-sm" onClick={() => fold("editor.unfoldAll")}>
          Unfold all
        </button>
      </div>
      <div className={frame.frame} style={{ height }} data-testid="json-viewer">
        <Editor
          height="100%"
          theme={MONACO_THEME}
          language="json"
          path={`sluice://viewer/${id.replace(/\W/g, "")}.json`}
          value={text}
          onMount={setEditor}
          options={{
            readOnly: true,
            domReadOnly: true,
            minimap: { enabled: false },
            fontSize: 13,
            tabSize: 2,
            folding: true,
            foldingStrategy: "indentation",
            showFoldingControls: "always",
            scrollBeyondLastLine: false,
            automaticLayout: true,
            wordWrap: "off",
            ariaLabel: label,
            fixedOverflowWidgets: true,
          }}
        />
      </div>
    </div>
  );
}
