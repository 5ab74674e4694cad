"use client";
import { useInfiniteQuery } from "@tanstack/react-query";
import Link from "next/link";
import { useId, useMemo, useState } from "react";
import { EmptyState, ErrorState, LoadingRows } from "@/components/ui/states";
import { RelativeTime } from "@/components/ui/time";
import { useTRPC } from "@/lib/trpc/client";
import { PROPOSAL_STATUSES, proposalStatusLabel } from "@/lib/workflow/status";
import { ProposalStatusBadge, RiskBadge } from "./proposal-badges";
import {
  authorText,
  PROPOSAL_POLL_MS,
  sortProposals,
  statusesOf,
  type ProposalFilter,
} from "./proposal-format";

/**
 * Change proposals, pending first: one workflow's (its Proposals tab) or the whole workspace's
 * (the inbox, with a Workflow column). Data is fetched on the client only, so relative times
 * never differ between the server render and hydration.
 */
export function ProposalList({ workflowId }: { workflowId?: string }) {
  const trpc = useTRPC();
  const filterId = useId();
  const [filter, setFilter] = useState<ProposalFilter>("open");
  const status = statusesOf(filter);
  const q = useInfiniteQuery(
    trpc.proposal.list.infiniteQueryOptions(
      { ...(workflowId ? { workflowId } : {}), ...(status ? { status } : {}), limit: 50 },
      {
        getNextPageParam: (page) => page.nextCursor ?? undefined,
        refetchInterval: PROPOSAL_POLL_MS,
      },
    ),
  );
  const items = useMemo(() => sortProposals(q.data?.pages.flatMap((p) => p.items) ?? []), [q.data]);
  const base = workflowId ? `/workflows/${workflowId}/proposals` : null;

  return (
    <section className="card" aria-label="Proposals">
      <div className="card-head">
        <h2>{workflowId ? "Proposals" : "All proposals"}</h2>
        <div className="row">
          <label htmlFor={filterId} className="small">
            Status
          </label>
          <select
            id={filterId}
            value={filter}
            onChange={(e) => setFilter(e.target.value as ProposalFilter)}
            style={{ width: 170 }}
          >
            <option value="open">Open (pending, approved)</option>
            <option value="all">All</option>
            {PROPOSAL_STATUSES.map((s) => (
              <option key={s} value={s}>
                {proposalStatusLabel(s)}
              </option>
            ))}
          </select>
        </div>
      </div>
      {q.isPending ? (
        <LoadingRows rows={4} label="Loading proposals" />
      ) : q.error ? (
        <ErrorState message={q.error.message} onRetry={() => void q.refetch()} />
      ) : items.length === 0 ? (
        <EmptyState title={filter === "open" ? "No open proposals" : "No proposals"}>
          A proposal is a suggested change to a workflow — from a person, an API token, the CLI, an
          MCP agent or a <code>propose_change</code> step — that a reviewer checks as a graph and
          JSON diff with its risk and dry-run report, then approves and applies as a new version. A
          workflow accepts proposals only when its <code>constraints.allowSelfModification</code> is
          on (the workflow&apos;s Overview tab has the switch).
        </EmptyState>
      ) : (
        <>
          <table className="table">
            <thead>
              <tr>
                <th scope="col">Summary</th>
                {workflowId ? null : <th scope="col">Workflow</th>}
                <th scope="col">Status</th>
                <th scope="col">Risk</th>
                <th scope="col">Author</th>
                <th scope="col">Created</th>
                <th scope="col">Base</th>
              </tr>
            </thead>
            <tbody>
              {items.map((p) => (
                <tr key={p.id} data-proposal={p.id}>
                  <td>
                    <Link href={`${base ?? `/workflows/${p.workflowId}/proposals`}/${p.id}`}>
                      {p.summary}
                    </Link>
                  </td>
                  {workflowId ? null : (
                    <td className="small">
                      <Link href={`/workflows/${p.workflowId}`}>{p.workflowName}</Link>
                    </td>
                  )}
                  <td>
                    <ProposalStatusBadge status={p.status} />
                  </td>
                  <td>
                    <RiskBadge risk={p.risk} />
                  </td>
                  <td className="small">{authorText(p.author)}</td>
                  <td className="small">
                    <RelativeTime date={p.createdAt} />
                  </td>
                  <td className="small mono faint">v{p.baseVersion}</td>
                </tr>
              ))}
            </tbody>
          </table>
          {q.hasNextPage ? (
            <div className="card-body">
              <button
                type="button"
                className="btn btn-sm"
                disabled={q.isFetchingNextPage}
                onClick={() => void q.fetchNextPage()}
              >
                {q.isFetchingNextPage ? "Loading…" : "Load more"}
              </button>
            </div>
          ) : null}
        </>
      )}
    </section>
  );
}
