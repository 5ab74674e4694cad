"use client";
import { useMemo } from "react";
import { DiffEditor } from "@/components/code-editor";
import { EmptyState } from "@/components/ui/states";
import { showValue } from "@/lib/workflow/change-summary";
import { fieldText } from "@/lib/workflow/issues";
import type { DefinitionDiff } from "@/lib/workflow";
import { prettySorted } from "./canonical-json";
import { STATUS_TEXT, stepDiffDetail } from "./graph-diff-model";
import styles from "./diff.module.css";

/** The selected step's field changes (path, before → after) and a Monaco diff of the step. */
export function StepDiffPanel({
  before,
  after,
  diff,
  stepId,
}: {
  before: unknown;
  after: unknown;
  diff: DefinitionDiff;
  stepId: string | null;
}) {
  const detail = useMemo(() => {
    if (!stepId) return null;
    try {
      return stepDiffDetail(before, after, diff, stepId);
    } catch {
      // The canvas already reports an invalid definition; the panel just stays empty.
      return null;
    }
  }, [before, after, diff, stepId]);

  if (!stepId || !detail)
    return (
      <section className="card" aria-label="Step changes">
        <EmptyState title="Select a step">
          Click a step on the graph (or focus it and press Enter) to see what changed in its
          configuration.
        </EmptyState>
      </section>
    );

  const status = STATUS_TEXT[detail.status].label;
  const bodyCount = detail.body
    ? detail.body.steps.added.length +
      detail.body.steps.removed.length +
      detail.body.steps.changed.length +
      detail.body.edges.added.length +
      detail.body.edges.removed.length +
      detail.body.edges.changed.length
    : 0;
  return (
    <section className="card" aria-label={`Step ${detail.id} changes`}>
      <div className="card-head">
        <h3 style={{ margin: 0 }}>
          <span className="mono">{detail.id}</span>{" "}
          <span className="small muted">({(detail.after ?? detail.before)!.type})</span>
        </h3>
        <span
          className={
            detail.status === "added"
              ? "badge badge-ok"
              : detail.status === "removed"
                ? "badge badge-danger"
                : detail.status === "changed"
                  ? "badge badge-warn"
                  : "badge"
          }
        >
          {status}
        </span>
      </div>
      <div className="card-body stack">
        {detail.status === "changed" ? (
          detail.changes.length > 0 ? (
            <table className={styles.fieldTable} aria-label={`Changed fields of ${detail.id}`}>
              <thead>
                <tr>
                  <th scope="col">Field</th>
                  <th scope="col">Before</th>
                  <th scope="col">After</th>
                </tr>
              </thead>
              <tbody>
                {detail.changes.map((c, i) => (
                  <tr key={i}>
                    <td>
                      <code>{fieldText(c.path) || "(whole step)"}</code>
                    </td>
                    <td className={styles.before}>
                      <code>{showValue(c.before)}</code>
                    </td>
                    <td className={styles.after}>
                      <code>{showValue(c.after)}</code>
                    </td>
                  </tr>
                ))}
              </tbody>
            </table>
          ) : null
        ) : (
          <p className="small muted" style={{ margin: 0 }}>
            {detail.status === "added"
              ? "A new step: everything on the right is new."
              : detail.status === "removed"
                ? "This step is removed: everything on the left goes away."
                : "This step is the same on both sides."}
          </p>
        )}
        {bodyCount > 0 ? (
          <p className="small" style={{ margin: 0 }}>
            Its loop body has {bodyCount} change{bodyCount === 1 ? "" : "s"} (listed in the change
            summary as <code>{detail.id}/…</code>).
          </p>
        ) : null}
        <DiffEditor
          original={detail.before ? prettySorted(detail.before) : ""}
          modified={detail.after ? prettySorted(detail.after) : ""}
          height="260px"
          hideUnchangedRegions={false}
          ariaLabel={`Configuration of step ${detail.id}, before and after`}
        />
      </div>
    </section>
  );
}
