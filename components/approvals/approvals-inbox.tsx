"use client";
import { useQuery } from "@tanstack/react-query";
import Link from "next/link";
import { useRouter } from "next/navigation";
import { useId, useState } from "react";
import { ApprovalGate } from "@/components/runs/approval-gate";
import { Dialog } from "@/components/ui/dialog";
import { EmptyState, ErrorState, LoadingRows } from "@/components/ui/states";
import { RelativeTime } from "@/components/ui/time";
import { workflowLabel } from "@/lib/schemas/runs";
import { useTRPC } from "@/lib/trpc/client";
import tabStyles from "@/components/shell/tabs.module.css";

type Tab = "mine" | "all" | "history";
type Sort = "expires" | "priority" | "due" | "newest";

const SORTS: { id: Sort; label: string }[] = [
  { id: "expires", label: "Expires soonest" },
  { id: "priority", label: "Priority" },
  { id: "due", label: "Due soonest" },
  { id: "newest", label: "Newest" },
];

/**
 * Approval requests: pending for me (decide inline), every open gate, and decided history.
 * `openId` (the deep link /approvals?open=<id>) opens that one decision in a dialog.
 */
export function ApprovalsInbox({ openId }: { openId?: string }) {
  const [tab, setTab] = useState<Tab>("mine");
  const [sort, setSort] = useState<Sort>("expires");
  const sortId = useId();
  const tabs: { id: Tab; label: string }[] = [
    { id: "mine", label: "Waiting for me" },
    { id: "all", label: "All open" },
    { id: "history", label: "History" },
  ];
  return (
    <div className="stack">
      <div className={tabStyles.tabs} role="tablist" aria-label="Approvals">
        {tabs.map((t) => (
          <button
            key={t.id}
            type="button"
            role="tab"
            id={`appr-tab-${t.id}`}
            aria-selected={tab === t.id}
            aria-controls={`appr-panel-${t.id}`}
            className="btn btn-ghost"
            tabIndex={tab === t.id ? 0 : -1}
            onClick={() => setTab(t.id)}
            onKeyDown={(e) => {
              const i = tabs.findIndex((x) => x.id === tab);
              const next =
                e.key === "ArrowRight"
                  ? tabs[(i + 1) % tabs.length]
                  : e.key === "ArrowLeft"
                    ? tabs[(i + tabs.length - 1) % tabs.length]
                    : null;
              if (!next) return;
              e.preventDefault();
              setTab(next.id);
              document.getElementById(`appr-tab-${next.id}`)?.focus();
            }}
            style={tab === t.id ? { borderBottom: "2px solid var(--accent)" } : undefined}
          >
            {t.label}
          </button>
        ))}
      </div>
      {tab !== "history" ? (
        <div className="row">
          <label htmlFor={sortId} className="small muted">
            Sort by
          </label>
          <select
            id={sortId}
            value={sort}
            onChange={(e) => setSort(e.target.value as Sort)}
            style={{ width: "auto" }}
          >
            {SORTS.map((s) => (
              <option key={s.id} value={s.id}>
                {s.label}
              </option>
            ))}
          </select>
        </div>
      ) : null}
      <div role="tabpanel" id={`appr-panel-${tab}`} aria-labelledby={`appr-tab-${tab}`}>
        {tab === "history" ? <History /> : <Pending scope={tab} sort={sort} />}
      </div>
      {openId ? <OpenedApproval key={openId} approvalId={openId} /> : null}
    </div>
  );
}

/** The deep-linked decision, in a dialog; closing it drops `?open=` from the address. */
function OpenedApproval({ approvalId }: { approvalId: string }) {
  const trpc = useTRPC();
  const router = useRouter();
  const [open, setOpen] = useState(true);
  const q = useQuery(trpc.approval.list.queryOptions({ approvalId }));
  const close = () => {
    setOpen(false);
    router.replace("/approvals");
  };
  const gate = q.data?.[0];
  return (
    <Dialog
      open={open}
      onClose={close}
      title={gate ? "Decide this approval" : "Approval"}
      footer={
        <button type="button" className="btn" onClick={close}>
          Close
        </button>
      }
    >
      {q.isPending ? (
        <LoadingRows rows={2} label="Loading the approval" />
      ) : q.error ? (
        <ErrorState message={q.error.message} onRetry={() => void q.refetch()} />
      ) : !gate ? (
        <EmptyState title="Approval not found">
          It does not exist in this workspace, or you cannot see it.
        </EmptyState>
      ) : gate.status === "pending" ? (
        <ApprovalGate gate={gate} showRun />
      ) : (
        <p>
          This approval was already decided: <strong>{gate.status}</strong>
          {gate.decidedAt ? (
            <>
              {" "}
              <RelativeTime date={gate.decidedAt} />
            </>
          ) : null}
          . <Link href={`/runs/${gate.runId}`}>Open the run</Link>
        </p>
      )}
    </Dialog>
  );
}

function Pending({ scope, sort }: { scope: "mine" | "all"; sort: Sort }) {
  const trpc = useTRPC();
  const q = useQuery({
    ...trpc.approval.list.queryOptions({ scope, status: "pending", sort }),
    refetchInterval: 5000,
  });
  if (q.isPending || q.isError)
    return <QueryStateCard query={q} loadingLabel="Loading approvals" />;
  if (q.data.length === 0)
    return (
      <div className="card">
        <EmptyState title={scope === "mine" ? "Nothing waiting for you" : "No open approvals"}>
          {scope === "mine"
            ? "Approval requests you can decide will appear here."
            : "Runs waiting for a human decision appear here."}
        </EmptyState>
      </div>
    );
  return (
    <section className="card" aria-label={scope === "mine" ? "Waiting for me" : "All open"}>
      <div className="card-body stack">
        {q.data.map((a) => (
          <ApprovalGate key={a.id} gate={a} showRun />
        ))}
      </div>
    </section>
  );
}

/** A query's loading or error state, in a card (the inbox's lists share it). */
function QueryStateCard({
  query,
  loadingLabel,
}: {
  query: { error: { message: string } | null; refetch: () => unknown };
  loadingLabel: string;
}) {
  return (
    <div className="card">
      {query.error ? (
        <ErrorState message={query.error.message} onRetry={() => void query.refetch()} />
      ) : (
        <LoadingRows rows={3} label={loadingLabel} />
      )}
    </div>
  );
}

function History() {
  const trpc = useTRPC();
  const q = useQuery(trpc.approval.list.queryOptions({ scope: "all", status: "decided" }));
  if (q.isPending || q.isError) return <QueryStateCard query={q} loadingLabel="Loading history" />;
  if (q.data.length === 0)
    return (
      <div className="card">
        <EmptyState title="No decisions yet">
          Approved and rejected requests are listed here once someone decides one.
        </EmptyState>
      </div>
    );
  return (
    <section className="card" aria-label="Approval history">
      <table className="table">
        <thead>
          <tr>
            <th scope="col">Request</th>
            <th scope="col">Outcome</th>
            <th scope="col">Decided by</th>
            <th scope="col">When</th>
          </tr>
        </thead>
        <tbody>
          {q.data.map((a) => (
            <tr key={a.id}>
              <td>
                <div>{a.prompt}</div>
                <div className="small muted">
                  {workflowLabel(a)} ·{" "}
                  <Link href={`/runs/${a.runId}`} className="mono">
                    {a.runId}
                  </Link>
                </div>
              </td>
              <td>
                <span
                  className={
                    a.status === "approved"
                      ? "badge badge-ok"
                      : a.status === "rejected"
                        ? "badge badge-danger"
                        : "badge"
                  }
                >
                  {a.status}
                </span>
              </td>
              <td>
                {a.decisions.length === 0 ? (
                  <span className="faint">—</span>
                ) : (
                  a.decisions.map((d, i) => (
                    <div key={i} className="small">
                      <strong>{d.userName}</strong> {d.decision}
                      {d.reason ? <>: “{d.reason}”</> : null}
                      {d.form ? <div className="mono faint">{JSON.stringify(d.form)}</div> : null}
                    </div>
                  ))
                )}
              </td>
              <td>
                <RelativeTime date={a.decidedAt} />
              </td>
            </tr>
          ))}
        </tbody>
      </table>
    </section>
  );
}
