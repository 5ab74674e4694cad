"use client";
import { RelativeTime } from "@/components/ui/time";
import { errorMessage, formatDuration, runDuration } from "./format";
import meta from "./run-meta.module.css";

/** When the run was created, started and finished, how long it took, and its engine execution. */
export function RunSummary({
  run: r,
  now,
}: {
  run: {
    createdAt: Date;
    startedAt: Date | null;
    finishedAt: Date | null;
    stepAttempts: number;
    executionId: string | null;
    executionUrl: string | null;
    error: unknown;
  };
  now: number | null;
}) {
  const err = errorMessage(r.error);
  return (
    <section className="card" aria-label="Run summary">
      <div className={`card-body ${meta.meta}`}>
        <div>
          <div className="small muted">Created</div>
          <RelativeTime date={r.createdAt} />
        </div>
        <div>
          <div className="small muted">Started</div>
          <RelativeTime date={r.startedAt} />
        </div>
        <div>
          <div className="small muted">Finished</div>
          <RelativeTime date={r.finishedAt} />
        </div>
        <div>
          <div className="small muted">Duration</div>
          <span data-testid="run-duration">
            {now === null ? "—" : formatDuration(runDuration(r, now))}
          </span>
        </div>
        <div>
          <div className="small muted">Step attempts</div>
          {r.stepAttempts}
        </div>
        <div>
          <div className="small muted">Engine execution</div>
          <span data-testid="run-execution">
            {r.executionId === null ? (
              <span className="muted">not started</span>
            ) : r.executionUrl ? (
              <a className="mono" href={r.executionUrl} target="_blank" rel="noreferrer">
                {r.executionId}
              </a>
            ) : (
              <span className="mono">{r.executionId}</span>
            )}
          </span>
        </div>
      </div>
      {err ? (
        <div className="card-body">
          <div className="form-error" role="alert" aria-label="Run error">
            {err}
          </div>
        </div>
      ) : null}
    </section>
  );
}
