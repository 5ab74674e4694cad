import { errorMessage, isActiveRun, statusLabel } from "./format";
import { JsonBlock } from "./json-block";

/**
 * Where the output goes: the output once there is one; for a run that ended without one
 * (failed, cancelled, timed out) the reason, so the first place a person looks says what
 * happened; "No output yet." while it is unfinished.
 */
export function RunOutcome({
  run: r,
}: {
  run: { id: string; status: string; output: unknown; error: unknown };
}) {
  if (r.status === "completed" || r.output != null)
    return <JsonBlock value={r.output} label="Run output" filename={`${r.id}-output.json`} />;
  if (isActiveRun(r.status)) return <span className="muted">No output yet.</span>;
  const message = errorMessage(r.error);
  return (
    <div className="stack">
      <div className="form-error" role="status" aria-label="Why there is no output">
        No output: the run {statusLabel(r.status)}
        {message ? `: ${message}` : "."}
      </div>
      {r.error ? (
        <JsonBlock value={r.error} label="Error details" filename={`${r.id}-error.json`} />
      ) : null}
    </div>
  );
}
