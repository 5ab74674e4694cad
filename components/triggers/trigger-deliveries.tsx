"use client";
import { Fragment, useState } from "react";
import { EmptyState } from "@/components/ui/states";
import { RelativeTime } from "@/components/ui/time";
import { useTRPCClient } from "@/lib/trpc/client";
import { RunLink, StatusBadge } from "./badges";

export type Delivery = {
  id: string;
  receivedAt: Date | string;
  status: string;
  reason: string | null;
  httpStatus: number | null;
  runId: string | null;
  runStatus: string | null;
  request: Record<string, unknown> | null;
};

export function TriggerDeliveries({ triggerId, first }: { triggerId: string; first: Delivery[] }) {
  const [open, setOpen] = useState<Set<string>>(new Set());
  // The first page rides along with `trigger.get` (polled); older pages are loaded on demand.
  const client = useTRPCClient();
  const [more, setMore] = useState<Delivery[]>([]);
  const [nextBefore, setNextBefore] = useState<string | null | undefined>(undefined);
  const [loading, setLoading] = useState(false);
  const items: Delivery[] = [...first, ...more.filter((d) => !first.some((f) => f.id === d.id))];
  async function loadOlder() {
    const last = items.at(-1);
    const before = nextBefore ?? (last ? new Date(last.receivedAt).toISOString() : undefined);
    setLoading(true);
    try {
      const page = await client.trigger.deliveries.query({ triggerId, limit: 20, before });
      setMore((m) => [...m, ...page.items]);
      setNextBefore(page.nextBefore);
    } finally {
      setLoading(false);
    }
  }
  const toggle = (id: string) =>
    setOpen((s) => {
      const n = new Set(s);
      if (n.has(id)) n.delete(id);
      else n.add(id);
      return n;
    });
  return (
    <section className="card" aria-labelledby="deliveries-h">
      <div className="card-head">
        <h2 id="deliveries-h">Deliveries</h2>
      </div>
      {items.length === 0 ? (
        <EmptyState title="No deliveries yet">
          Every request or event that reaches this trigger is listed here, including rejected ones
          with the reason.
        </EmptyState>
      ) : (
        <table className="table">
          <thead>
            <tr>
              <th>Received</th>
              <th>Status</th>
              <th>HTTP</th>
              <th>Reason</th>
              <th>Run</th>
              <th>
                <span className="sr-only">Request</span>
              </th>
            </tr>
          </thead>
          <tbody>
            {items.map((d) => (
              <Fragment key={d.id}>
                <tr>
                  <td>
                    <RelativeTime date={d.receivedAt} />
                  </td>
                  <td>
                    <StatusBadge status={d.status} />
                  </td>
                  <td className="mono">{d.httpStatus ?? "—"}</td>
                  <td className="small">{d.reason ?? <span className="faint">—</span>}</td>
                  <td>
                    <RunLink runId={d.runId} status={d.runStatus} />
                  </td>
                  <td>
                    {d.request ? (
                      <button
                        type="button"
                        className="btn btn-sm"
                        aria-expanded={open.has(d.id)}
                        aria-controls={`req-${d.id}`}
                        onClick={() => toggle(d.id)}
                      >
                        {open.has(d.id) ? "Hide request" : "Show request"}
                      </button>
                    ) : null}
                  </td>
                </tr>
                {d.request && open.has(d.id) ? (
                  <tr id={`req-${d.id}`}>
                    <td colSpan={6}>
                      <pre aria-label="Request">{JSON.stringify(d.request, null, 2)}</pre>
                    </td>
                  </tr>
                ) : null}
              </Fragment>
            ))}
          </tbody>
        </table>
      )}
      {first.length >= 20 && nextBefore !== null ? (
        <div className="card-body">
          <button
            type="button"
            className="btn btn-sm"
            disabled={loading}
            onClick={() => void loadOlder()}
          >
            Load older deliveries
          </button>
        </div>
      ) : null}
    </section>
  );
}
