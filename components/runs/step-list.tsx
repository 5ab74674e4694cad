"use client";
import Link from "next/link";
import { ErrorState, LoadingRows } from "@/components/ui/states";
import { RelativeTime } from "@/components/ui/time";
import { STEP_CATALOG } from "@/lib/workflow/catalog";
import { attemptDuration, formatDuration } from "./format";
import { RunStatusBadge } from "./run-status-badge";
import { attemptsByPath, type StepAttemptView } from "./step-attempt";

export const typeLabel = (t: string) =>
  (STEP_CATALOG as Record<string, { label: string } | undefined>)[t]?.label ?? t;

/** The run's steps, one row per step path (its last attempt), each opening the step drawer. */
export function StepList({
  attempts,
  isPending,
  error,
  onRetry,
  reusedStepIds,
  rerunOfRunId,
  selected,
  onSelect,
  now,
  className,
}: {
  attempts: readonly StepAttemptView[];
  isPending: boolean;
  error: string | null;
  onRetry: () => void;
  reusedStepIds: readonly string[];
  rerunOfRunId: string | null;
  selected: string | null;
  onSelect: (path: string) => void;
  now: number | null;
  className?: string;
}) {
  return (
    <section className={`card ${className ?? ""}`} aria-labelledby="steps-h">
      <div className="card-head">
        <h2 id="steps-h">Steps</h2>
      </div>
      {reusedStepIds.length ? (
        <div className="card-body small muted" style={{ paddingBottom: 0 }}>
          Reused from <Link href={`/runs/${rerunOfRunId}`}>the original run</Link>:{" "}
          {reusedStepIds.map((id, i) => (
            <span key={id}>
              {i ? ", " : ""}
              <span className="mono">{id}</span>
            </span>
          ))}
        </div>
      ) : null}
      {isPending ? (
        <LoadingRows rows={3} label="Loading steps" />
      ) : error ? (
        <ErrorState message={error} onRetry={onRetry} />
      ) : attempts.length === 0 ? (
        <div className="card-body muted">No step has started yet.</div>
      ) : (
        <table className="table" aria-label="Step timeline">
          <thead>
            <tr>
              <th scope="col">Step</th>
              <th scope="col">Status</th>
              <th scope="col">Attempts</th>
              <th scope="col">Started</th>
              <th scope="col">Duration</th>
            </tr>
          </thead>
          <tbody>
            {[...attemptsByPath(attempts).entries()].map(([path, list]) => {
              const last = list[list.length - 1]!;
              const retried = list.length > 1;
              return (
                <tr
                  key={path}
                  className={selected === path ? "selected" : undefined}
                  data-step={path}
                >
                  <td>
                    <button
                      type="button"
                      className="btn-link mono"
                      aria-pressed={selected === path}
                      aria-controls={selected === path ? "step-drawer" : undefined}
                      onClick={() => onSelect(path)}
                    >
                      {path}
                    </button>
                    <div className="small faint">{typeLabel(last.stepType)}</div>
                  </td>
                  <td>
                    <RunStatusBadge status={last.status} />
                    {last.port && last.port !== "success" ? (
                      <span className="small muted"> → {last.port}</span>
                    ) : null}
                    {last.skipReason ? <div className="small faint">{last.skipReason}</div> : null}
                  </td>
                  <td>
                    {list.length}
                    {retried ? <span className="badge badge-warn"> retried</span> : null}
                  </td>
                  <td>
                    <RelativeTime date={last.startedAt} />
                  </td>
                  <td>{formatDuration(attemptDuration(last, now))}</td>
                </tr>
              );
            })}
          </tbody>
        </table>
      )}
    </section>
  );
}
