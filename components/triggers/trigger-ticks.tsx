"use client";
import { useQuery } from "@tanstack/react-query";
import { EmptyState, ErrorState, LoadingRows } from "@/components/ui/states";
import { LocalTime } from "@/components/ui/time";
import { useTRPC } from "@/lib/trpc/client";
import { RunLink, StatusBadge } from "./badges";
import { TRIGGER_POLL_MS } from "./trigger-list";

export function TriggerTicks({ triggerId }: { triggerId: string }) {
  const trpc = useTRPC();
  const q = useQuery({
    ...trpc.schedule.ticks.queryOptions({ triggerId, limit: 50 }),
    refetchInterval: TRIGGER_POLL_MS,
  });
  return (
    <section className="card" aria-labelledby="ticks-h">
      <div className="card-head">
        <h2 id="ticks-h">Ticks</h2>
      </div>
      {q.isPending ? (
        <LoadingRows label="Loading ticks" />
      ) : q.error ? (
        <ErrorState message={q.error.message} onRetry={() => q.refetch()} />
      ) : q.data.items.length === 0 ? (
        <EmptyState title="No ticks yet">
          Each scheduled time is listed here once it comes: fired, skipped (overlap), missed
          (downtime) or failed, with the reason.
        </EmptyState>
      ) : (
        <table className="table">
          <thead>
            <tr>
              <th>Scheduled for</th>
              <th>Status</th>
              <th>Reason</th>
              <th>Run</th>
            </tr>
          </thead>
          <tbody>
            {q.data.items.map((k) => (
              <tr key={new Date(k.tick).toISOString()}>
                <td>
                  <LocalTime date={k.tick} />
                </td>
                <td>
                  <StatusBadge status={k.status} />
                </td>
                <td className="small">{k.reason ?? <span className="faint">—</span>}</td>
                <td>
                  <RunLink runId={k.runId} />
                </td>
              </tr>
            ))}
          </tbody>
        </table>
      )}
    </section>
  );
}
