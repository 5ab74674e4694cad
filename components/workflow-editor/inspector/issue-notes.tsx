import type { EditorIssue } from "@/components/workflows/issue-list";
import styles from "./inspector.module.css";

/** Issues about the inspected thing as a whole (not one field), as a short list. */
export function IssueNotes({ issues }: { issues: readonly EditorIssue[] }) {
  if (issues.length === 0) return null;
  return (
    <ul className={styles.notes} aria-label="Problems here">
      {issues.map((i, n) => (
        <li key={`${i.code}-${n}`}>
          <span className={i.severity === "error" ? "badge badge-danger" : "badge badge-warn"}>
            {i.severity}
          </span>{" "}
          {i.message}
        </li>
      ))}
    </ul>
  );
}
