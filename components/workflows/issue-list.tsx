"use client";

export interface EditorIssue {
  code: string;
  message: string;
  path: (string | number)[];
  severity: "error" | "warning";
  stepId?: string;
}

/** The validator's issues; selecting one moves the editor to its location. */
export function IssueList({
  issues,
  onSelect,
}: {
  issues: EditorIssue[];
  onSelect: (i: EditorIssue) => void;
}) {
  const errors = issues.filter((i) => i.severity === "error").length;
  const warnings = issues.length - errors;
  return (
    <section className="card issue-list" aria-labelledby="issues-h">
      <div className="card-head">
        <h2 id="issues-h">Problems</h2>
        <span className="row" style={{ gap: 4 }}>
          <span className={errors ? "badge badge-danger" : "badge badge-ok"}>
            {errors} error{errors === 1 ? "" : "s"}
          </span>
          {warnings ? (
            <span className="badge badge-warn">
              {warnings} warning{warnings === 1 ? "" : "s"}
            </span>
          ) : null}
        </span>
      </div>
      {issues.length === 0 ? (
        <div className="card-body muted small">No problems: this draft can be published.</div>
      ) : (
        <ul className="issues" aria-label="Problems in the definition">
          {issues.map((i, n) => (
            <li key={`${i.code}-${n}`}>
              <button type="button" onClick={() => onSelect(i)}>
                <span
                  className={i.severity === "error" ? "badge badge-danger" : "badge badge-warn"}
                >
                  {i.severity}
                </span>
                <span>{i.message}</span>
                <code className="faint">{i.path.length ? i.path.join(".") : "(root)"}</code>
              </button>
            </li>
          ))}
        </ul>
      )}
    </section>
  );
}
