"use client";
import { useId, useState } from "react";
import { SelectField } from "@/components/forms/fields";
import { EDGE_FAILURE_POLICIES, type EdgeFailurePolicy } from "@/lib/workflow/steps";
import { edgeInfo, setEdgeFailure, setEdgePort, type EdgeRef } from "@/lib/workflow/edit-ops";
import type { InspectorProps } from "./index";
import { issuesAt } from "./issues";
import { IssueNotes } from "./issue-notes";
import { portLabel } from "./references";
import styles from "./inspector.module.css";

/** What each failure policy does, in one sentence (docs/workflow-language.md §4–5). */
export const FAILURE_POLICY_TEXT: Record<EdgeFailurePolicy, { label: string; text: string }> = {
  skip: {
    label: "Skip (default)",
    text: "If the source fails, the target is skipped — even when another incoming edge was taken.",
  },
  continue: {
    label: "Continue",
    text: "If the source fails, the target still runs and sees the source's output as null; the failure counts as handled.",
  },
  fail_run: {
    label: "Fail the run",
    text: "If the source fails, the whole run fails at once and pending steps are cancelled.",
  },
};

/** An edge: which port of its source it leaves from, and what a failed source means for it. */
export function EdgePanel({
  definition,
  edge,
  issues,
  readOnly,
  onChange,
  onSelect,
}: Omit<InspectorProps, "selection"> & { edge: EdgeRef }) {
  const groupId = useId();
  const [refusal, setRefusal] = useState<string | null>(null);
  const info = edgeInfo(definition, edge);
  if (!info.found) return <p className="muted small">{info.reason}</p>;
  const placed =
    info.index >= 0
      ? issuesAt(issues, [...info.levelAt, "edges", info.index])
      : { byField: {}, general: [] };
  return (
    <div className={styles.panel}>
      <header className={styles.head}>
        <h2 className={styles.title}>
          <code>{edge.from}</code> → <code>{edge.to}</code>
        </h2>
        <p className="muted small">Edge from a {info.sourceType} step.</p>
      </header>
      <IssueNotes issues={placed.general} />
      {info.implicit ? (
        <p className="section-note">
          This part of the workflow runs in array order. Changing this edge writes that order out as
          explicit edges (the same connections), then changes this one.
        </p>
      ) : null}
      <SelectField
        label="Port"
        value={edge.port}
        disabled={readOnly}
        hint="The edge is taken when the source ends on this port; error runs only if it failed."
        error={refusal ?? placed.byField.port}
        options={info.ports.map((p) => [p, portLabel(info.sourceType, p)] as const)}
        onChange={(port) => {
          const result = setEdgePort(definition, edge, port);
          if (!result.ok) return setRefusal(result.reason);
          setRefusal(null);
          onChange(result.definition);
          onSelect({ kind: "edge", ...result.edge });
        }}
      />
      <fieldset className={styles.policies} aria-describedby={`${groupId}-note`}>
        <legend>If the source fails</legend>
        {EDGE_FAILURE_POLICIES.map((policy) => (
          <label key={policy} className={styles.policy}>
            <input
              type="radio"
              name={`${groupId}-policy`}
              value={policy}
              checked={info.onFailure === policy}
              disabled={readOnly}
              onChange={() => {
                const result = setEdgeFailure(definition, edge, policy);
                if (result.ok) onChange(result.definition);
                else setRefusal(result.reason);
              }}
            />
            <span>
              <strong>{FAILURE_POLICY_TEXT[policy].label}</strong>
              <span className="muted small"> {FAILURE_POLICY_TEXT[policy].text}</span>
            </span>
          </label>
        ))}
        <div id={`${groupId}-note`} className="hint">
          {edge.port === "error"
            ? "An error edge is taken only when the source failed, so this policy has no effect here."
            : placed.byField.onFailure}
        </div>
      </fieldset>
    </div>
  );
}
