"use client";
import { useMemo, useState } from "react";
import { JsonViewer } from "@/components/code-editor";
import { jsonPreview } from "./format";
import jsonBlock from "./json-block.module.css";

/**
 * Pretty JSON. Past `max` characters: the first part, a "Download JSON" button for the whole,
 * and a viewer (Monaco, loaded only when asked) that folds and searches all of it.
 */
export function JsonBlock({
  value,
  label,
  filename,
  max = 4000,
}: {
  value: unknown;
  label: string;
  filename: string;
  max?: number;
}) {
  const p = useMemo(() => jsonPreview(value, max), [value, max]);
  const [isViewing, setViewing] = useState(false);
  function download() {
    const url = URL.createObjectURL(
      new Blob([JSON.stringify(value, null, 2) ?? "null"], { type: "application/json" }),
    );
    const a = document.createElement("a");
    a.href = url;
    a.download = filename;
    a.click();
    URL.revokeObjectURL(url);
  }
  return (
    <div className="stack" style={{ gap: 4, minWidth: 0 }}>
      <div className="row" style={{ justifyContent: "space-between" }}>
        <span className="small muted">{label}</span>
        <span className="row" style={{ gap: 6 }}>
          {p.truncated ? (
            <button
              type="button"
              className="btn btn-sm"
              aria-expanded={isViewing}
              onClick={() => setViewing((v) => !v)}
            >
              {isViewing ? `Close ${label} viewer` : `View all of ${label}`}
            </button>
          ) : null}
          <button type="button" className="btn btn-sm" onClick={download}>
            {/* Named "Download <label> as JSON"; the visible words stay part of the name. */}
            Download <span className="sr-only">{label} as </span>JSON
          </button>
        </span>
      </div>
      {isViewing ? (
        <JsonViewer text={JSON.stringify(value, null, 2) ?? "null"} label={label} />
      ) : (
        <>
          <pre className={jsonBlock.block} aria-label={label} tabIndex={0}>
            {p.text}
          </pre>
          {p.truncated ? (
            <div className="small faint">
              Showing the first {max.toLocaleString()} of {p.size.toLocaleString()} characters.
            </div>
          ) : null}
        </>
      )}
    </div>
  );
}
