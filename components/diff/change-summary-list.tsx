"use client";
import styles from "./diff.module.css";

/** One line of lib/workflow/change-summary.ts (`summarizeChange`), as the server sends it too. */
export interface ChangeSummaryLine {
  kind: string;
  change: string;
  target: string;
  message: string;
}

const MARK_CLASS: Record<string, string | undefined> = {
  added: styles.markAdded,
  removed: styles.markRemoved,
  changed: styles.markChanged,
};

/**
 * Every changed step, edge, input, variable, constraint and metadata field, one line each, with
 * the change named in text. Step lines are buttons that select the step on the canvas.
 */
export function ChangeSummaryList({
  lines,
  onSelectStep,
  stepIds,
}: {
  lines: readonly ChangeSummaryLine[];
  onSelectStep?: (stepId: string) => void;
  /** Top-level step ids on the canvas (loop-body lines such as `loop/inner` are not nodes). */
  stepIds?: ReadonlySet<string>;
}) {
  if (lines.length === 0)
    return (
      <p className="small muted" style={{ margin: 0 }}>
        No differences.
      </p>
    );
  return (
    <ul className={styles.changes} aria-label="Change summary" data-testid="change-summary">
      {lines.map((l, i) => {
        const selectable = l.kind === "step" && onSelectStep && (stepIds?.has(l.target) ?? true);
        return (
          <li key={i}>
            <span className={`${styles.mark} ${MARK_CLASS[l.change] ?? ""}`}>
              {l.change} {l.kind}
            </span>
            {selectable ? (
              <button
                type="button"
                className="btn btn-ghost btn-sm"
                style={{ padding: 0, textAlign: "left" }}
                onClick={() => onSelectStep(l.target)}
                aria-label={`${l.message} (show on the graph)`}
              >
                {l.message}
              </button>
            ) : (
              <span>{l.message}</span>
            )}
          </li>
        );
      })}
    </ul>
  );
}
