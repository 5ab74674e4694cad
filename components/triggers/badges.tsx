import Link from "next/link";
import { deliveryTone, runTone, statusLabel } from "./trigger-model";

export function StatusBadge({
  status,
  kind = "delivery",
}: {
  status: string;
  kind?: "delivery" | "run";
}) {
  const tone = kind === "run" ? runTone(status) : deliveryTone(status);
  return <span className={tone ? `badge badge-${tone}` : "badge"}>{statusLabel(status)}</span>;
}

/** A link to a run with its status; `/runs/<id>` is the run page. */
export function RunLink({ runId, status }: { runId: string | null; status?: string | null }) {
  if (!runId) return <span className="faint">—</span>;
  return (
    <span className="row" style={{ gap: 6 }}>
      <Link href={`/runs/${runId}`} aria-label={`Run ${runId}`} className="mono small">
        {runId}
      </Link>
      {status ? <StatusBadge status={status} kind="run" /> : null}
    </span>
  );
}
