"use client";
import { useInfiniteQuery } from "@tanstack/react-query";
import Link from "next/link";
import { useId, useState } from "react";
import { PaginatedTable } from "@/components/ui/paginated-table";
import { EmptyState } from "@/components/ui/states";
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
      <PaginatedTable
        query={q}
        noun="proposals"
        loadingLabel="Loading proposals"
        rowKey={(p) => p.id}
        rowProps={(p) => ({ "data-proposal": p.id })}
        arrange={sortProposals}
        empty={
          <EmptyState title={filter === "open" ? "No open proposals" : "No proposals"}>
            A proposal is a suggested change to a workflow — from a person, an API token, the CLI,
            an MCP agent or a <code>propose_change</code> step — that a reviewer checks as a graph
            and JSON diff with its risk and dry-run report, then approves and applies as a new
            version. A workflow accepts proposals only when its{" "}
            <code>constraints.allowSelfModification</code> is on (the workflow&apos;s Overview tab
            has the switch).
          </EmptyState>
        }
        columns={[
          {
            key: "summary",
            header: "Summary",
            cell: (p) => (
              <Link href={`${base ?? `/workflows/${p.workflowId}/proposals`}/${p.id}`}>
                {p.summary}
              </Link>
            ),
          },
          !workflowId && {
            key: "workflow",
            header: "Workflow",
            className: "small",
            cell: (p) => <Link href={`/workflows/${p.workflowId}`}>{p.workflowName}</Link>,
          },
          {
            key: "status",
            header: "Status",
            cell: (p) => <ProposalStatusBadge status={p.status} />,
          },
          { key: "risk", header: "Risk", cell: (p) => <RiskBadge risk={p.risk} /> },
          {
            key: "author",
            header: "Author",
            className: "small",
            cell: (p) => authorText(p.author),
          },
          {
            key: "created",
            header: "Created",
            className: "small",
            cell: (p) => <RelativeTime date={p.createdAt} />,
          },
          {
            key: "base",
            header: "Base",
            className: "small mono faint",
            cell: (p) => `v${p.baseVersion}`,
          },
        ]}
      />
    </section>
  );
}
