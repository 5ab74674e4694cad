"use client";
import Link from "next/link";
import type { DryRunReport as Report } from "@/lib/workflow/dry-run-types";
import { VERDICT_TEXT } from "./proposal-format";

export interface DryRunView {
  status: "pending" | "running" | "done" | "failed";
  done: number;
  total: number;
  report: Report | null;
  error: string | null;
}

function Paths({ paths }: { paths: readonly string[] }) {
  if (paths.length === 0) return <span className="faint">—</span>;
  return (
    <span className="mono small">
      {paths.map((p, i) => (
        <span key={p}>
          {i ? ", " : ""}
          {p}
        </span>
      ))}
    </span>
  );
}

/**
 * The dry run (SPEC §8): the workflow's last runs replayed through the proposed definition with
 * recorded side effects. A progress bar while it runs (the screen polls), then one row per run.
 */
export function DryRunReport({
  dryRun,
  onRetry,
  retrying,
  retryError,
}: {
  dryRun: DryRunView;
  onRetry?: () => void;
  retrying?: boolean;
  retryError?: string;
}) {
  if (dryRun.status === "pending" || dryRun.status === "running") {
    const label =
      dryRun.total > 0
        ? `Replaying run ${Math.min(dryRun.done + 1, dryRun.total)} of ${dryRun.total}…`
        : "Waiting to start…";
    return (
      <div className="stack" aria-busy="true">
        <progress
          value={dryRun.total > 0 ? dryRun.done : undefined}
          max={dryRun.total > 0 ? dryRun.total : undefined}
          aria-label="Dry run progress"
          style={{ width: "100%" }}
        />
        <span className="small muted" role="status">
          {label}
        </span>
      </div>
    );
  }
  if (dryRun.status === "failed")
    return (
      <div className="stack">
        <div className="form-error" role="alert">
          The dry run failed: {dryRun.error ?? "unknown error"}
        </div>
        {onRetry ? (
          <div>
            <button type="button" className="btn btn-sm" onClick={onRetry} disabled={retrying}>
              Retry dry run
            </button>
          </div>
        ) : null}
        {retryError ? (
          <div className="form-error" role="alert">
            {retryError}
          </div>
        ) : null}
      </div>
    );
  const report = dryRun.report;
  if (!report || report.runs.length === 0)
    return (
      <p className="small muted" style={{ margin: 0 }}>
        No finished runs to replay: the workflow has not run yet, so there is nothing to compare
        against.
      </p>
    );
  const totals = (Object.keys(VERDICT_TEXT) as (keyof typeof VERDICT_TEXT)[])
    .filter((v) => (report.totals[v] ?? 0) > 0)
    .map((v) => `${report.totals[v]} ${VERDICT_TEXT[v].label.toLowerCase()}`)
    .join(" · ");
  return (
    <div className="stack">
      <p className="small" style={{ margin: 0 }} data-testid="dry-run-totals">
        {report.runs.length} run{report.runs.length === 1 ? "" : "s"} replayed: {totals}
      </p>
      <table className="table" aria-label="Dry run by run">
        <thead>
          <tr>
            <th scope="col">Run</th>
            <th scope="col">Verdict</th>
            <th scope="col">Newly executed</th>
            <th scope="col">Newly skipped</th>
            <th scope="col">Output</th>
          </tr>
        </thead>
        <tbody>
          {report.runs.map((r) => (
            <tr key={r.runId}>
              <td>
                <Link href={`/runs/${r.runId}`} className="mono small">
                  {r.runId}
                </Link>
              </td>
              <td>
                <span className={VERDICT_TEXT[r.verdict].tone}>
                  {VERDICT_TEXT[r.verdict].label}
                </span>
                {r.failure ? (
                  <div className="small" style={{ color: "var(--danger)" }}>
                    {r.failure.stepPath ? (
                      <span className="mono">{r.failure.stepPath}: </span>
                    ) : null}
                    {r.failure.message}
                  </div>
                ) : null}
                {r.notComparable.length > 0 ? (
                  <div className="small muted">
                    No recording for <Paths paths={r.notComparable} />
                  </div>
                ) : null}
              </td>
              <td>
                <Paths paths={r.newlyExecuted} />
              </td>
              <td>
                <Paths paths={r.newlySkipped} />
              </td>
              <td className="small">
                {r.outputChanged ? (
                  <details>
                    <summary>Changes</summary>
                    <div className="mono faint">before: {JSON.stringify(r.outputBefore)}</div>
                    <div className="mono">after: {JSON.stringify(r.outputAfter)}</div>
                  </details>
                ) : (
                  <span className="muted">Same</span>
                )}
              </td>
            </tr>
          ))}
        </tbody>
      </table>
    </div>
  );
}
