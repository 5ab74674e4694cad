"use client";
import { useEffect, useRef } from "react";
import { RelativeTime } from "@/components/ui/time";
import { ConditionChecks } from "./condition-checks";
import { attemptDuration, errorMessage, formatDuration } from "./format";
import { JsonBlock } from "./json-block";
import { RunStatusBadge } from "./run-status-badge";
import type { StepAttemptView } from "./step-attempt";
import { typeLabel } from "./step-list";
import meta from "./run-meta.module.css";

/**
 * A step's details beside the graph: status, attempts (newest first) with their timings, input,
 * output and error. Opened from the graph, the step list or the timeline (and `?step=<path>`);
 * focused on open so the keyboard lands in it, closed with Esc or Close (focus goes back).
 */
export function StepDrawer({
  runId,
  path,
  attempts,
  now,
  onRerun,
  onClose,
  className,
}: {
  runId: string;
  path: string;
  attempts: readonly StepAttemptView[];
  now: number | null;
  /** Present when the run may be rerun from this step. */
  onRerun?: () => void;
  onClose: () => void;
  className?: string;
}) {
  const ref = useRef<HTMLElement>(null);
  const opener = useRef<Element | null>(null);
  const closeRef = useRef(onClose);
  useEffect(() => {
    closeRef.current = onClose;
  }, [onClose]);

  useEffect(() => {
    opener.current ??= document.activeElement;
    ref.current?.focus({ preventScroll: true });
    ref.current?.scrollIntoView({ block: "nearest" });
  }, [path]);

  useEffect(() => {
    const onKey = (e: KeyboardEvent) => {
      // Esc belongs to an open dialog or a widget that handled it (Monaco's find) first.
      if (e.key !== "Escape" || e.defaultPrevented || document.querySelector("dialog[open]"))
        return;
      closeRef.current();
    };
    window.addEventListener("keydown", onKey);
    return () => {
      window.removeEventListener("keydown", onKey);
      const back = opener.current;
      if (back instanceof HTMLElement && back.isConnected) back.focus({ preventScroll: true });
    };
  }, []);

  const last = attempts.at(-1);
  return (
    <section
      ref={ref}
      id="step-drawer"
      className={`card ${className ?? ""}`}
      aria-labelledby="detail-h"
      tabIndex={-1}
    >
      <div className="card-head">
        <h2 id="detail-h">
          Step <span className="mono">{path}</span>
        </h2>
        <div className="row">
          {onRerun ? (
            <button type="button" className="btn btn-sm" onClick={onRerun}>
              Rerun from here…
            </button>
          ) : null}
          <button
            type="button"
            className="btn btn-sm btn-ghost"
            onClick={onClose}
            aria-keyshortcuts="Escape"
          >
            Close
          </button>
        </div>
      </div>
      <div className="card-body stack">
        {!last ? (
          <div className="muted">This step has not run.</div>
        ) : (
          <>
            <dl className={meta.meta}>
              <div>
                <dt className="small muted">Status</dt>
                <dd style={{ margin: 0 }}>
                  <RunStatusBadge status={last.status} />
                </dd>
              </div>
              <div>
                <dt className="small muted">Type</dt>
                <dd style={{ margin: 0 }}>{typeLabel(last.stepType)}</dd>
              </div>
              <div>
                <dt className="small muted">Attempts</dt>
                <dd style={{ margin: 0 }}>{attempts.length}</dd>
              </div>
            </dl>
            {attempts
              .slice()
              .reverse()
              .map((a) => (
                <div key={a.id} className={`${meta.attempt} stack`}>
                  <div className="row" style={{ flexWrap: "wrap" }}>
                    <strong>
                      {a.path !== path ? `${a.path} · ` : ""}Attempt {a.attempt}
                    </strong>
                    <RunStatusBadge status={a.status} />
                    <span className="small muted">
                      started <RelativeTime date={a.startedAt} /> · ran{" "}
                      {formatDuration(attemptDuration(a, now))}
                      {a.finishedAt ? (
                        <>
                          {" "}
                          · finished <RelativeTime date={a.finishedAt} />
                        </>
                      ) : null}
                    </span>
                    {a.failureClass ? (
                      <span className="small muted">{a.failureClass} failure</span>
                    ) : null}
                  </div>
                  {a.error ? (
                    <div className="form-error" role="alert">
                      {errorMessage(a.error)}
                    </div>
                  ) : null}
                  <ConditionChecks output={a.output} />
                  <JsonBlock
                    value={a.input}
                    label="Resolved input"
                    filename={`${runId}-${a.path}-${a.attempt}-input.json`}
                  />
                  <JsonBlock
                    value={a.output}
                    label="Output"
                    filename={`${runId}-${a.path}-${a.attempt}-output.json`}
                  />
                  {a.error ? (
                    <JsonBlock
                      value={a.error}
                      label="Error"
                      filename={`${runId}-${a.path}-${a.attempt}-error.json`}
                    />
                  ) : null}
                </div>
              ))}
          </>
        )}
      </div>
    </section>
  );
}
