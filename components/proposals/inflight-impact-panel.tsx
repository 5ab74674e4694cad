"use client";
import { useQuery } from "@tanstack/react-query";
import Link from "next/link";
import { RelativeTime } from "@/components/ui/time";
import { LoadingRows, ErrorState } from "@/components/ui/states";
import { statusLabel } from "@/components/runs/format";
import { useTRPC } from "@/lib/trpc/client";

/**
 * What applying touches, before anyone applies: the runs in flight on the base version (they keep
 * it) and the enabled triggers that start the new version from then on.
 */
export function InflightImpactPanel({ proposalId }: { proposalId: string }) {
  const trpc = useTRPC();
  const impact = useQuery(trpc.proposal.inflightImpact.queryOptions({ proposalId }));
  return (
    <section className="card" aria-labelledby="impact-h">
      <div className="card-head">
        <h2 id="impact-h">In-flight impact</h2>
        <span className="small muted">What applying changes, and what it leaves alone</span>
      </div>
      <div className="card-body stack">
        {impact.isPending ? (
          <LoadingRows label="Loading the impact" />
        ) : impact.error ? (
          <ErrorState message={impact.error.message} onRetry={() => void impact.refetch()} />
        ) : (
          <>
            <div>
              <h3 style={{ margin: "0 0 4px" }}>
                Runs in flight on v{impact.data.baseVersion}: {impact.data.inFlight.total}
              </h3>
              <p className="small muted" style={{ margin: "0 0 4px" }}>
                {impact.data.inFlight.note}
                {impact.data.inFlight.onOtherVersions
                  ? ` ${impact.data.inFlight.onOtherVersions} more run(s) are in flight on other versions; they keep theirs too.`
                  : ""}
              </p>
              {impact.data.inFlight.runs.length ? (
                <ul aria-label="Runs in flight" style={{ margin: 0, paddingLeft: 18 }}>
                  {impact.data.inFlight.runs.map((r) => (
                    <li key={r.id}>
                      <Link href={`/runs/${r.id}`} className="mono">
                        {r.id}
                      </Link>{" "}
                      {statusLabel(r.status)} · {r.triggerType} · started{" "}
                      <RelativeTime date={r.startedAt ?? r.createdAt} />
                    </li>
                  ))}
                  {impact.data.inFlight.truncated ? (
                    <li className="muted">
                      …and {impact.data.inFlight.total - impact.data.inFlight.runs.length} more
                    </li>
                  ) : null}
                </ul>
              ) : null}
            </div>
            <div>
              <h3 style={{ margin: "0 0 4px" }}>
                Triggers that will start the new version: {impact.data.triggers.length}
              </h3>
              <p className="small muted" style={{ margin: "0 0 4px" }}>
                {impact.data.triggerNote}
              </p>
              {impact.data.triggers.length ? (
                <ul aria-label="Triggers" style={{ margin: 0, paddingLeft: 18 }}>
                  {impact.data.triggers.map((t) => (
                    <li key={t.id}>
                      <strong>{t.name}</strong> ({t.kind}){" "}
                      {t.kind === "webhook" && t.url ? <span className="mono">{t.url}</span> : null}
                      {t.kind === "event" ? <span className="mono">{t.event}</span> : null}
                      {t.schedule ? (
                        <span>
                          <span className="mono">{t.schedule.cron}</span> ({t.schedule.timezone})
                          {t.schedule.nextAt ? (
                            <>
                              , next <RelativeTime date={t.schedule.nextAt} />
                            </>
                          ) : null}
                        </span>
                      ) : null}
                    </li>
                  ))}
                </ul>
              ) : null}
            </div>
          </>
        )}
      </div>
    </section>
  );
}
