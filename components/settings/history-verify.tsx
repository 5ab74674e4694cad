"use client";
import { useMutation } from "@tanstack/react-query";
import { ErrorState } from "@/components/ui/states";
import { errorMessage, useTRPC } from "@/lib/trpc/client";
import styles from "./history-verify.module.css";

/**
 * Settings → Audit: "Verify history" recomputes the workspace's tamper-evident chain (versions,
 * proposal reviews and applies, approval decisions, audit rows) and shows the verdict — the
 * first broken link when there is one — with the head to keep as an anchor.
 */
export function HistoryVerify() {
  const trpc = useTRPC();
  const verify = useMutation(trpc.audit.verify.mutationOptions());
  const r = verify.data;
  return (
    <section className="card" aria-label="Tamper-evident history">
      <div className="card-head row">
        <div className="grow">
          <h2>Tamper-evident history</h2>
          <p className="faint small">
            Versions, proposal reviews and applies, approval decisions and audit entries are
            hash-chained; verifying recomputes every link from the stored rows.
          </p>
        </div>
        <button
          type="button"
          className="btn btn-sm"
          disabled={verify.isPending}
          onClick={() => verify.mutate({})}
        >
          {verify.isPending ? "Verifying…" : "Verify history"}
        </button>
      </div>
      <div role="status" aria-live="polite" className={styles.result}>
        {verify.error ? (
          <ErrorState message={`Verification failed to run: ${errorMessage(verify.error)}`} />
        ) : r?.ok ? (
          <p>
            <strong>History verified: OK.</strong> {r.checked} links checked
            {r.pruned ? `, ${r.pruned} pruned by retention` : ""}. Head: link {r.head.seq},{" "}
            <code className={styles.hash}>{r.head.hash}</code>
          </p>
        ) : r?.firstBroken ? (
          <div>
            <p>
              <strong>History broken at link {r.firstBroken.seq}</strong> ({r.firstBroken.kind}{" "}
              {r.firstBroken.rowId || ""}, {r.firstBroken.problem.replace(/_/g, " ")}).
            </p>
            <p>{r.firstBroken.message}</p>
          </div>
        ) : null}
      </div>
    </section>
  );
}
