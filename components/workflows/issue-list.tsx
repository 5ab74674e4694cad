"use client";
import styles from "./issue-list.module.css";

export interface EditorIssue {
  code: string;
  message: string;
  path: (string | number)[];
  severity: "error" | "warning";
  stepId?: string;
}

/** "2 errors" / "1 warning" pills (fixed height: they never stretch with the row). */
export function IssueCounts({ issues }: { issues: readonly EditorIssue[] }) {
  const errors = issues.filter((i) => i.severity === "error").length;
  const warnings = issues.length - errors;
  return (
    <span className={styles.counts}>
      <span className={`${errors ? "badge badge-danger" : "badge badge-ok"} ${styles.pill}`}>
        {errors} error{errors === 1 ? "" : "s"}
      </span>
      {warnings ? (
        <span className={`badge badge-warn ${styles.pill}`}>
          {warnings} warning{warnings === 1 ? "" : "s"}
        </span>
      ) : null}
    </span>
  );
}

/**
 * The validator's issues; selecting one moves the editor to its location. `embedded`: inside
 * the graph editor's Problems drawer, whose header already shows the title and counts and
 * which is the "Problems" region itself.
 */
export function IssueList({
  issues,
  onSelect,
  embedded = false,
}: {
  issues: EditorIssue[];
  onSelect: (i: EditorIssue) => void;
  embedded?: boolean;
}) {
  const list =
    issues.length === 0 ? (
      <div className="card-body muted small">No problems: this draft can be published.</div>
    ) : (
      <ul className={styles.issues} aria-label="Problems in the definition">
        {issues.map((i, n) => (
          <li key={`${i.code}-${n}`}>
            <button type="button" onClick={() => onSelect(i)}>
              <span
                className={`${i.severity === "error" ? "badge badge-danger" : "badge badge-warn"} ${styles.pill}`}
              >
                {i.severity}
              </span>
              <span>{i.message}</span>
              <code className="faint">{i.path.length ? i.path.join(".") : "(root)"}</code>
            </button>
          </li>
        ))}
      </ul>
    );
  // The drawer around it is the "Problems" region.
  if (embedded) return list;
  return (
    <section className={`card ${styles.card}`} aria-labelledby="issues-h">
      <div className="card-head">
        <h2 id="issues-h">Problems</h2>
        <IssueCounts issues={issues} />
      </div>
      {list}
    </section>
  );
}
