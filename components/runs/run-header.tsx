"use client";
import Link from "next/link";
import { CopyButton } from "@/components/ui/copy-button";
import { RunStatusBadge } from "./run-status-badge";

export interface RunHeaderData {
  id: string;
  status: string;
  workflowId: string | null;
  workflowName: string;
  version: string;
  triggerType: string;
  initiatorType: string;
  initiatorName: string | null;
  repository: { url: string; ref: string; sha: string | null } | null;
  parentRunId: string | null;
  rerunOfRunId: string | null;
  rerunFromStepId: string | null;
}

/** The run's title line (id, status), where it came from, and its actions. */
export function RunHeader({
  run: r,
  canCancel,
  canRerun,
  onCancel,
  onRerun,
}: {
  run: RunHeaderData;
  canCancel: boolean;
  canRerun: boolean;
  onCancel: () => void;
  onRerun: () => void;
}) {
  return (
    <div className="page-head">
      <div>
        <h1 className="row" style={{ gap: 10 }}>
          <span>Run</span> <span className="mono">{r.id}</span>
          <RunStatusBadge status={r.status} />
        </h1>
        <p className="row" style={{ flexWrap: "wrap" }}>
          {r.workflowId ? (
            <>
              <Link href={`/workflows/${r.workflowId}`}>{r.workflowName}</Link>
              <span className="badge">v{r.version}</span>
            </>
          ) : (
            <span className="badge" title="An unsaved definition, run inline">
              Inline
            </span>
          )}
          <span>
            trigger <strong>{r.triggerType}</strong>
          </span>
          <span>
            by <strong>{r.initiatorName ?? r.initiatorType}</strong>
          </span>
          {r.repository ? (
            <span title={r.repository.url}>
              repository <strong className="mono">{r.repository.ref}</strong>
              {" @ "}
              {r.repository.sha ? (
                <span className="mono" aria-label={`commit ${r.repository.sha}`}>
                  {r.repository.sha.slice(0, 12)}
                </span>
              ) : (
                <span className="muted">not resolved</span>
              )}
            </span>
          ) : null}
          {r.parentRunId ? (
            <span>
              child of <Link href={`/runs/${r.parentRunId}`}>{r.parentRunId}</Link>
            </span>
          ) : null}
          {r.rerunOfRunId ? (
            <span>
              rerun of <Link href={`/runs/${r.rerunOfRunId}`}>{r.rerunOfRunId}</Link>
              {r.rerunFromStepId ? (
                <>
                  {" "}
                  from <span className="mono">{r.rerunFromStepId}</span>
                </>
              ) : null}
            </span>
          ) : null}
        </p>
      </div>
      <div className="row">
        <CopyButton value={r.id} label="Copy run id" />
        {r.workflowId || r.rerunOfRunId ? (
          <Link className="btn" href={`/runs/${r.id}/compare`}>
            Compare with previous run
          </Link>
        ) : null}
        {r.workflowId ? (
          <Link className="btn" href={`/workflows/${r.workflowId}/edit?run=${r.id}`}>
            Open in editor
          </Link>
        ) : null}
        {canCancel ? (
          <button
            type="button"
            className="btn btn-danger"
            disabled={r.status === "cancel_requested"}
            onClick={onCancel}
          >
            Cancel run
          </button>
        ) : null}
        {canRerun ? (
          <button type="button" className="btn" onClick={onRerun}>
            Rerun…
          </button>
        ) : null}
      </div>
    </div>
  );
}
