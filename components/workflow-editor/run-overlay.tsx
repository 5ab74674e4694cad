"use client";
import { useQuery } from "@tanstack/react-query";
import Link from "next/link";
import { useMemo } from "react";
import { isActiveRun } from "@/components/runs/format";
import { statusesFromAttempts } from "@/components/workflow-graph/layout";
import { useTRPC } from "@/lib/trpc/client";
import styles from "./run-overlay.module.css";

/**
 * "Open in editor" from a run page (`/workflows/:id/edit?run=:runId`): the run's step statuses
 * on the editor's canvas, live while the run is active. The canvas shows the draft, which may
 * differ from the version the run used; the banner says which version that was.
 */
export function useRunOverlay(runId: string | null) {
  const trpc = useTRPC();
  const run = useQuery({
    ...trpc.run.get.queryOptions({ runId: runId ?? "" }),
    enabled: !!runId,
    refetchInterval: (q) => (q.state.data && isActiveRun(q.state.data.status) ? 2000 : false),
  });
  const active = !!run.data && isActiveRun(run.data.status);
  const steps = useQuery({
    ...trpc.run.steps.queryOptions({ runId: runId ?? "" }),
    enabled: !!runId,
    refetchInterval: active ? 2000 : false,
  });
  const statuses = useMemo(
    () => (steps.data ? statusesFromAttempts(steps.data) : undefined),
    [steps.data],
  );
  return { runId, run, statuses };
}

export function RunOverlayBanner({
  overlay,
  onClose,
}: {
  overlay: ReturnType<typeof useRunOverlay>;
  onClose: () => void;
}) {
  const { runId, run } = overlay;
  if (!runId) return null;
  if (run.error)
    return (
      <div className="callout callout-warn" role="status">
        Run <span className="mono">{runId}</span> could not be loaded: {run.error.message}{" "}
        <button type="button" className="btn btn-sm" onClick={onClose}>
          Hide
        </button>
      </div>
    );
  return (
    <div className={`callout ${styles.banner}`} role="status" aria-label="Run on the canvas">
      {run.data ? (
        <>
          Showing the statuses of run{" "}
          <Link href={`/runs/${runId}`} className="mono">
            {runId}
          </Link>{" "}
          (<strong>{run.data.status}</strong>, v{run.data.version}) on the draft.{" "}
        </>
      ) : (
        <>Loading run {runId}… </>
      )}
      <button type="button" className="btn btn-sm" onClick={onClose}>
        Hide run
      </button>
    </div>
  );
}
