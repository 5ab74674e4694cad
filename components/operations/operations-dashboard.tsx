"use client";
import Link from "next/link";
import { useQuery } from "@tanstack/react-query";
import { useState } from "react";
import { EmptyState, ErrorState, LoadingRows } from "@/components/ui/states";
import { RelativeTime } from "@/components/ui/time";
import {
  OPERATIONS_RANGES,
  type OperationsOverview,
  type OperationsRange,
} from "@/lib/schemas/operations";
import { errorMessage, useTRPC } from "@/lib/trpc/client";
import { duration, percent } from "./format";
import { DurationChart, RunsPerHourChart, WebhookRejectsChart } from "./operations-charts";
import styles from "./operations.module.css";

const RANGE_LABEL: Record<OperationsRange, string> = {
  "24h": "Last 24 hours",
  "7d": "Last 7 days",
};

/**
 * The operations page (admins): runs and failures per hour, p50/p95 per workflow, the queue, the
 * oldest waiting gate and webhook rejects, over the last 24 hours or 7 days. Refreshed every 30 s.
 */
export function OperationsDashboard() {
  const trpc = useTRPC();
  const [range, setRange] = useState<OperationsRange>("24h");
  const q = useQuery({
    ...trpc.operations.overview.queryOptions({ range }),
    refetchInterval: 30_000,
  });
  return (
    <div className="stack">
      <div className="row" role="group" aria-label="Range" style={{ gap: 6 }}>
        {OPERATIONS_RANGES.map((r) => (
          <button
            key={r}
            type="button"
            className={r === range ? "btn btn-sm btn-primary" : "btn btn-sm"}
            aria-pressed={r === range}
            onClick={() => setRange(r)}
          >
            {RANGE_LABEL[r]}
          </button>
        ))}
      </div>
      {q.isPending ? (
        <div className="card">
          <LoadingRows rows={4} label="Loading operations" />
        </div>
      ) : q.isError ? (
        <div className="card">
          <ErrorState message={errorMessage(q.error)} onRetry={() => void q.refetch()} />
        </div>
      ) : (
        <Overview data={q.data} />
      )}
    </div>
  );
}

function Overview({ data }: { data: OperationsOverview }) {
  const gate = data.gates.oldest;
  return (
    <>
      <dl className={styles.stats} aria-label="Right now">
        <div className={`card ${styles.stat}`}>
          <dt>Queued runs</dt>
          <dd>
            {data.queue.queued}
            <span className={styles.detail}>
              {data.queue.oldestQueuedAt ? (
                <>
                  oldest queued <RelativeTime date={data.queue.oldestQueuedAt} />
                </>
              ) : (
                "nothing waiting for admission"
              )}
            </span>
          </dd>
        </div>
        <div className={`card ${styles.stat}`}>
          <dt>Active runs</dt>
          <dd>
            {data.queue.running + data.queue.waiting}
            <span className={styles.detail}>
              {data.queue.running} running, {data.queue.waiting} waiting
            </span>
          </dd>
        </div>
        <div className={`card ${styles.stat}`}>
          <dt>Waiting gates</dt>
          <dd>
            {data.gates.waiting}
            <span className={styles.detail}>
              {gate ? (
                <>
                  oldest:{" "}
                  <Link href={`/runs/${gate.runId}`}>
                    {gate.kind} {gate.stepId}
                  </Link>
                  {gate.workflowName ? ` in ${gate.workflowName}` : ""}, opened{" "}
                  <RelativeTime date={gate.since} />
                </>
              ) : (
                "no approval or task is open"
              )}
            </span>
          </dd>
        </div>
        <div className={`card ${styles.stat}`}>
          <dt>Webhook rejects ({RANGE_LABEL[data.range].toLowerCase()})</dt>
          <dd>
            {data.webhooks.rejected}
            <span className={styles.detail}>
              {data.webhooks.topReasons.length
                ? data.webhooks.topReasons.map((r) => `${r.reason} (${r.count})`).join(", ")
                : `${data.webhooks.accepted} accepted`}
            </span>
          </dd>
        </div>
      </dl>
      {data.totals.runs === 0 && data.webhooks.rejected === 0 ? (
        <div className="card">
          <EmptyState title="No runs in this range">
            Charts appear once workflows run. Start one from a workflow&apos;s page, or pick a
            longer range.
          </EmptyState>
        </div>
      ) : (
        <div className={styles.grid}>
          <RunsPerHourChart data={data} />
          <WebhookRejectsChart data={data} />
          <DurationChart data={data} />
        </div>
      )}
      <WorkflowTable data={data} />
    </>
  );
}

function WorkflowTable({ data }: { data: OperationsOverview }) {
  if (data.workflows.length === 0) return null;
  return (
    <section className="card" aria-labelledby="per-workflow-title">
      <div className="card-head">
        <h2 id="per-workflow-title">Per workflow</h2>
        <p className="small muted">
          The busiest {data.workflows.length} workflows; failures count failed and timed-out runs.
        </p>
      </div>
      <div className={styles.tableWrap}>
        <table className="table">
          <thead>
            <tr>
              <th scope="col">Workflow</th>
              <th scope="col" className={styles.num}>
                Runs
              </th>
              <th scope="col" className={styles.num}>
                Failed
              </th>
              <th scope="col" className={styles.num}>
                Failure rate
              </th>
              <th scope="col" className={styles.num}>
                p50
              </th>
              <th scope="col" className={styles.num}>
                p95
              </th>
            </tr>
          </thead>
          <tbody>
            {data.workflows.map((w) => (
              <tr key={w.workflowId}>
                <th scope="row">
                  <Link href={`/workflows/${w.workflowId}`}>{w.name}</Link>
                </th>
                <td className={styles.num}>{w.runs}</td>
                <td className={styles.num}>{w.failed}</td>
                <td className={styles.num}>{percent(w.failureRate, w.runs)}</td>
                <td className={styles.num}>{duration(w.p50Ms)}</td>
                <td className={styles.num}>{duration(w.p95Ms)}</td>
              </tr>
            ))}
          </tbody>
        </table>
      </div>
    </section>
  );
}
