"use client";
import { useState } from "react";
import type { JsonDiff } from "@/lib/json-diff";
import type { RunDiffStep } from "@/lib/runs/run-diff";
import { formatDuration, statusLabel } from "./format";
import css from "./run-compare.module.css";

const VERDICT_LABEL: Record<RunDiffStep["verdict"], string> = {
  same: "same",
  different: "different",
  only_a: "only in A",
  only_b: "only in B",
};

function show(value: unknown): string {
  return typeof value === "string" ? JSON.stringify(value) : (JSON.stringify(value) ?? "undefined");
}

/** One JSON diff as a list of `where: before → after` lines (already capped by the server). */
function DiffList({ label, diff }: { label: string; diff: JsonDiff }) {
  if (diff.equal) return <div className="small muted">{label}: same</div>;
  return (
    <div>
      <div className="small">
        <strong>{label}</strong>: {diff.totalChanges} change{diff.totalChanges === 1 ? "" : "s"}
        {diff.truncated ? ` (first ${diff.changes.length} shown)` : ""}
      </div>
      <ul className={css.changes} aria-label={`${label} changes`}>
        {diff.changes.map((c, i) => (
          <li key={i} className={css.change}>
            <span className="mono small">
              {c.where} <span className="muted">{c.kind}</span>
            </span>
            <span className="stack" style={{ gap: 2 }}>
              {c.kind !== "added" ? (
                <span className={`${css.value} ${css.before}`} aria-label="before">
                  {show(c.before)}
                </span>
              ) : null}
              {c.kind !== "removed" ? (
                <span className={`${css.value} ${css.after}`} aria-label="after">
                  {show(c.after)}
                </span>
              ) : null}
              {c.clipped ? <span className="small muted">clipped</span> : null}
            </span>
          </li>
        ))}
      </ul>
    </div>
  );
}

function sideText(s: RunDiffStep["a"]): string {
  if (!s) return "did not run";
  const parts = [statusLabel(s.status)];
  if (s.port) parts.push(`→ ${s.port}`);
  if (s.attempts > 1) parts.push(`${s.attempts} attempts`);
  if (s.durationMs !== null) parts.push(formatDuration(s.durationMs));
  return parts.join(" · ");
}

/**
 * One step of the diff, collapsed: the details (JSON diffs) render only once opened, so a page
 * with hundreds of steps or large diffs stays light.
 */
function StepRow({ step }: { step: RunDiffStep }) {
  const [isOpen, setOpen] = useState(false);
  const delta = step.durationDeltaMs;
  return (
    <details
      className={css.step}
      data-verdict={step.verdict}
      onToggle={(e) => setOpen((e.currentTarget as HTMLDetailsElement).open)}
    >
      <summary>
        <span className="mono">{step.path}</span>
        <span className={`badge ${step.verdict === "same" ? "" : "badge-warn"}`}>
          {VERDICT_LABEL[step.verdict]}
        </span>
        <span className="small">
          A: {sideText(step.a)} | B: {sideText(step.b)}
        </span>
        {delta !== null && delta !== 0 ? (
          <span className="small muted">
            {delta > 0 ? "+" : "−"}
            {formatDuration(Math.abs(delta))}
          </span>
        ) : null}
      </summary>
      {isOpen ? (
        <div className="stack" style={{ gap: 6, marginTop: 6 }}>
          {step.pathChanged && step.a && step.b ? (
            <div className="small">
              Path taken differs: A {step.a.status === "skipped" ? "skipped it" : "ran it"}
              {step.a.port ? ` (port ${step.a.port})` : ""}, B{" "}
              {step.b.status === "skipped" ? "skipped it" : "ran it"}
              {step.b.port ? ` (port ${step.b.port})` : ""}.
            </div>
          ) : null}
          {step.input ? <DiffList label="Input" diff={step.input} /> : null}
          {step.output ? <DiffList label="Result" diff={step.output} /> : null}
          {!step.a || !step.b ? (
            <div className="small muted">Ran in {step.a ? "A" : "B"} only: nothing to compare.</div>
          ) : null}
        </div>
      ) : null}
    </details>
  );
}

/** The steps of a run diff, differences first unless the reader asks for every step. */
export function RunCompareSteps({ steps }: { steps: RunDiffStep[] }) {
  const [showSame, setShowSame] = useState(false);
  const shown = showSame ? steps : steps.filter((s) => s.verdict !== "same");
  const same = steps.length - steps.filter((s) => s.verdict !== "same").length;
  return (
    <section className="stack" aria-label="Steps compared">
      <div className="row" style={{ justifyContent: "space-between" }}>
        <h2>Steps</h2>
        <label className="row small" style={{ gap: 6 }}>
          <input
            type="checkbox"
            checked={showSame}
            onChange={(e) => setShowSame(e.target.checked)}
            style={{ width: "auto" }}
          />
          Show the {same} unchanged step{same === 1 ? "" : "s"}
        </label>
      </div>
      {shown.length ? (
        shown.map((s) => <StepRow key={s.path} step={s} />)
      ) : (
        <p className="muted">Every step is the same in both runs.</p>
      )}
    </section>
  );
}
