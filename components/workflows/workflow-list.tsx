"use client";
import { useInfiniteQuery, useMutation, useQueryClient } from "@tanstack/react-query";
import Link from "next/link";
import { useRouter } from "next/navigation";
import { useDeferredValue, useState } from "react";
import { useRole } from "@/components/shell/role-context";
import { PaginatedTable } from "@/components/ui/paginated-table";
import { EmptyState } from "@/components/ui/states";
import { RelativeTime, useHydrated } from "@/components/ui/time";
import { useToast } from "@/components/ui/toast";
import { useTRPC } from "@/lib/trpc/client";
import { WorkflowStatusBadges } from "./workflow-status-badge";
import switchStyles from "@/components/ui/switch.module.css";

type StatusFilter = "all" | "published" | "draft_only" | "unpublished_changes";

export function WorkflowList() {
  const trpc = useTRPC();
  const qc = useQueryClient();
  const toast = useToast();
  const router = useRouter();
  const { can } = useRole();
  const [search, setSearch] = useState("");
  const [status, setStatus] = useState<StatusFilter>("all");
  const [enabled, setEnabled] = useState<"" | "true" | "false">("");
  const deferredSearch = useDeferredValue(search);
  const input = {
    search: deferredSearch || undefined,
    status,
    enabled: enabled === "" ? undefined : enabled === "true",
    limit: 50,
  };
  const list = useInfiniteQuery(
    trpc.workflow.list.infiniteQueryOptions(input, {
      getNextPageParam: (last) => last.nextCursor ?? undefined,
      initialCursor: undefined,
    }),
  );
  // Optimistic switch state while the change is saved.
  const [optimistic, setOptimistic] = useState<Record<string, boolean>>({});
  const toggle = useMutation(
    trpc.workflow.update.mutationOptions({
      onMutate: (v) => setOptimistic((o) => ({ ...o, [v.workflowId]: Boolean(v.isEnabled) })),
      onSettled: (_d, _e, v) =>
        setOptimistic((o) => {
          const { [v.workflowId]: _, ...rest } = o;
          return rest;
        }),
      // Awaited, so the optimistic state is dropped only once the list shows the new value.
      onSuccess: async (wf) => {
        toast(`${wf.name} ${wf.isEnabled ? "enabled" : "disabled"}`);
        await qc.invalidateQueries({ queryKey: trpc.workflow.list.infiniteQueryKey() });
      },
      onError: (e) => toast(e.message, "error"),
    }),
  );
  const hydrated = useHydrated();
  const filtered = Boolean(deferredSearch) || status !== "all" || enabled !== "";

  return (
    <section className="card" aria-label="Workflows">
      <div className="card-head" role="search">
        {/* Disabled until hydrated: what is typed or chosen before React listens is lost. */}
        <fieldset className="plain row grow" disabled={!hydrated}>
          <label htmlFor="wf-search" className="sr-only">
            Search workflows
          </label>
          <input
            id="wf-search"
            type="search"
            placeholder="Search by name, slug or description"
            value={search}
            onChange={(e) => setSearch(e.target.value)}
            style={{ maxWidth: 340 }}
          />
          <label htmlFor="wf-status" className="sr-only">
            Status
          </label>
          <select
            id="wf-status"
            value={status}
            onChange={(e) => setStatus(e.target.value as StatusFilter)}
            style={{ width: 200 }}
          >
            <option value="all">All statuses</option>
            <option value="published">Published</option>
            <option value="draft_only">Draft only</option>
            <option value="unpublished_changes">Unpublished changes</option>
          </select>
          <label htmlFor="wf-enabled" className="sr-only">
            Enabled
          </label>
          <select
            id="wf-enabled"
            value={enabled}
            onChange={(e) => setEnabled(e.target.value as "" | "true" | "false")}
            style={{ width: 150 }}
          >
            <option value="">Enabled or not</option>
            <option value="true">Enabled</option>
            <option value="false">Disabled</option>
          </select>
        </fieldset>
        {list.isFetching && !list.isPending ? (
          <span className="spinner" aria-label="Refreshing" />
        ) : null}
      </div>
      <PaginatedTable
        query={list}
        noun="workflows"
        loadingLabel="Loading workflows"
        rowKey={(wf) => wf.id}
        rowProps={(wf) => ({
          className: "clickable",
          onClick: (e) => {
            if (!(e.target as HTMLElement).closest("a,button,input,label"))
              router.push(`/workflows/${wf.id}`);
          },
        })}
        empty={
          filtered ? (
            <EmptyState title="No matching workflows">Try another search or filter.</EmptyState>
          ) : (
            <EmptyState
              title="No workflows yet"
              action={
                can("editor") ? (
                  <Link className="btn btn-primary" href="/workflows/new">
                    Create your first workflow
                  </Link>
                ) : undefined
              }
            >
              Workflows are multi-step automations with approvals, retries and version history.
            </EmptyState>
          )
        }
        columns={[
          {
            key: "name",
            header: "Name",
            cell: (wf) => (
              <>
                <Link href={`/workflows/${wf.id}`} style={{ fontWeight: 600 }}>
                  {wf.name}
                </Link>
                <div className="faint small mono">{wf.slug}</div>
                {wf.tags.length ? (
                  <div className="row" style={{ gap: 4, marginTop: 2 }}>
                    {wf.tags.map((t) => (
                      <span key={t} className="badge">
                        {t}
                      </span>
                    ))}
                  </div>
                ) : null}
              </>
            ),
          },
          {
            key: "status",
            header: "Status",
            cell: (wf) => (
              <WorkflowStatusBadges
                currentVersion={wf.currentVersion}
                hasDraftChanges={wf.hasDraftChanges}
                isEnabled={wf.isEnabled}
              />
            ),
          },
          { key: "steps", header: "Steps", cell: (wf) => wf.stepCount },
          {
            key: "published",
            header: "Last published",
            cell: (wf) => <RelativeTime date={wf.publishedAt} />,
          },
          { key: "updated", header: "Updated", cell: (wf) => <RelativeTime date={wf.updatedAt} /> },
          {
            key: "enabled",
            header: "Enabled",
            cell: (wf) => (
              <label className={switchStyles.switch}>
                <input
                  type="checkbox"
                  role="switch"
                  aria-label={`${wf.name} enabled`}
                  checked={optimistic[wf.id] ?? wf.isEnabled}
                  disabled={!can("editor") || toggle.isPending}
                  onChange={(e) =>
                    toggle.mutate({ workflowId: wf.id, isEnabled: e.target.checked })
                  }
                />
                <span aria-hidden />
              </label>
            ),
          },
        ]}
      />
    </section>
  );
}
