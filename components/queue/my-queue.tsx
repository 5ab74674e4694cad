"use client";
import { useQuery } from "@tanstack/react-query";
import Link from "next/link";
import { useState } from "react";
import { EmptyState, ErrorState, LoadingRows } from "@/components/ui/states";
import { RelativeTime, useNow } from "@/components/ui/time";
import { useTRPC } from "@/lib/trpc/client";
import { mergeQueue, type QueueItem } from "./queue-model";
import styles from "./queue.module.css";
import { TaskPanel } from "./task-panel";

/** The queries My queue and its sidebar badge share (same keys, so one fetch serves both). */
export const MY_TASKS_INPUT = { mine: true, status: ["pending" as const], limit: 200 };
export const MY_APPROVALS_INPUT = { scope: "mine" as const, status: "pending" as const };

/**
 * Tasks and approvals waiting for me, soonest due first, overdue highlighted. A task opens in
 * place (instructions, output form, Complete / Fail); an approval links to the approvals inbox.
 */
export function MyQueue() {
  const trpc = useTRPC();
  const tasks = useQuery({
    ...trpc.task.list.queryOptions(MY_TASKS_INPUT),
    refetchInterval: 5_000,
  });
  const approvals = useQuery({
    ...trpc.approval.list.queryOptions(MY_APPROVALS_INPUT),
    refetchInterval: 5_000,
  });
  const now = useNow();
  const [open, setOpen] = useState<string | null>(null);

  const failed = tasks.error ?? approvals.error;
  if (failed)
    return (
      <div className="card">
        <ErrorState
          message={failed.message}
          onRetry={() => void Promise.all([tasks.refetch(), approvals.refetch()])}
        />
      </div>
    );
  if (!tasks.data || !approvals.data)
    return (
      <div className="card">
        <LoadingRows rows={3} label="Loading your queue" />
      </div>
    );
  // Until hydration has finished there is no "now": nothing is shown as overdue yet.
  const items = mergeQueue(tasks.data.items, approvals.data, now ?? 0);
  if (items.length === 0)
    return (
      <div className="card">
        <EmptyState title="Nothing waiting for you">
          Tasks assigned to you and approvals you can decide appear here.
        </EmptyState>
      </div>
    );
  return (
    <section className="card" aria-label="My queue">
      <ul className={styles.list}>
        {items.map((item) => (
          <Row
            key={item.id}
            item={item}
            open={open === item.id}
            onToggle={() => setOpen(open === item.id ? null : item.id)}
          />
        ))}
      </ul>
    </section>
  );
}

function Row({ item, open, onToggle }: { item: QueueItem; open: boolean; onToggle: () => void }) {
  const panelId = `queue-${item.id}`;
  return (
    <li
      className={`${styles.item} ${item.isOverdue ? styles.overdue : ""}`}
      aria-label={`${item.kind === "task" ? "Task" : "Approval"}: ${item.title}`}
      data-kind={item.kind}
    >
      <div className={styles.head}>
        <div className="stack" style={{ gap: 2 }}>
          <div className="row" style={{ gap: 8 }}>
            <span className="badge">{item.kind === "task" ? "Task" : "Approval"}</span>
            <span className={styles.title}>{item.title}</span>
            {item.isOverdue ? <span className="badge badge-danger">Overdue</span> : null}
          </div>
          <div className="small muted">
            {item.workflowLabel} ·{" "}
            <Link href={`/runs/${item.runId}`} className="mono">
              {item.runId}
            </Link>{" "}
            · {item.hasDueDate ? "due" : "expires"}{" "}
            {item.due ? <RelativeTime date={item.due} /> : "—"}
          </div>
        </div>
        {item.kind === "task" ? (
          <button
            type="button"
            className="btn btn-sm"
            aria-expanded={open}
            aria-controls={panelId}
            onClick={onToggle}
          >
            {open ? "Close" : "Open"}
          </button>
        ) : (
          <Link className="btn btn-sm" href={`/approvals?open=${encodeURIComponent(item.id)}`}>
            Decide
          </Link>
        )}
      </div>
      {item.kind === "task" && open ? (
        <div id={panelId}>
          <TaskPanel taskId={item.id} />
        </div>
      ) : null}
    </li>
  );
}
