import { statusLabel, statusTone } from "./format";

export function RunStatusBadge({ status }: { status: string }) {
  return (
    <span className={statusTone(status)} data-status={status}>
      {status === "running" || status === "cancel_requested" ? (
        <span className="spinner" aria-hidden style={{ width: 10, height: 10 }} />
      ) : null}
      {statusLabel(status)}
    </span>
  );
}
