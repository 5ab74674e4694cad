"use client";
import { useMemo, useRef, useState } from "react";
import { DiffEditor, type DiffEditorHandle } from "@/components/code-editor";
import { canonicalDefinitionText } from "./canonical-json";
import styles from "./diff.module.css";

/**
 * Monaco's side-by-side diff of two definitions as canonical JSON (the hashed form, keys sorted),
 * unchanged regions collapsed, with keyboard-reachable "Previous/Next change" buttons.
 */
export function JsonDiff({
  before,
  after,
  beforeLabel,
  afterLabel,
  height = "55vh",
}: {
  before: unknown;
  after: unknown;
  beforeLabel: string;
  afterLabel: string;
  height?: string;
}) {
  const original = useMemo(() => canonicalDefinitionText(before), [before]);
  const modified = useMemo(() => canonicalDefinitionText(after), [after]);
  const handle = useRef<DiffEditorHandle | null>(null);
  const [ready, setReady] = useState(false);
  const [count, setCount] = useState<number | null>(null);
  const identical = original === modified;
  return (
    <div className={styles.jsonDiff}>
      <div className={styles.toolbar}>
        <span className="small muted">
          <strong>{beforeLabel}</strong> (left) → <strong>{afterLabel}</strong> (right), canonical
          JSON
        </span>
        <span className="row">
          <span className="small muted" role="status">
            {identical
              ? "No differences"
              : count === null
                ? "Comparing…"
                : `${count} changed region${count === 1 ? "" : "s"}`}
          </span>
          <button
            type="button"
            className="btn btn-sm"
            disabled={!ready || identical}
            onClick={() => handle.current?.goToDiff("previous")}
          >
            Previous change
          </button>
          <button
            type="button"
            className="btn btn-sm"
            disabled={!ready || identical}
            onClick={() => handle.current?.goToDiff("next")}
          >
            Next change
          </button>
        </span>
      </div>
      <DiffEditor
        original={original}
        modified={modified}
        height={height}
        hideUnchangedRegions
        ariaLabel={`JSON differences, ${beforeLabel} to ${afterLabel}`}
        onReady={(h) => {
          handle.current = h;
          setReady(true);
        }}
        onChangeCount={setCount}
      />
    </div>
  );
}
