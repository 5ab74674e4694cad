"use client";
import { jsonPreview } from "./format";

/** Pretty JSON, truncated past `max` characters with a "Download JSON" button for the whole. */
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
  const p = jsonPreview(value, max);
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
    <div className="stack" style={{ gap: 4 }}>
      <div className="row" style={{ justifyContent: "space-between" }}>
        <span className="small muted">{label}</span>
        <button
          type="button"
          className="btn btn-sm"
          onClick={download}
          aria-label={`Download ${label} as JSON`}
        >
          Download JSON
        </button>
      </div>
      <pre className="json-block" aria-label={label} tabIndex={0}>
        {p.text}
      </pre>
      {p.truncated ? (
        <div className="small faint">
          Showing the first {max.toLocaleString()} of {p.size.toLocaleString()} characters.
        </div>
      ) : null}
    </div>
  );
}
