"use client";
import { useInfiniteQuery, useQuery } from "@tanstack/react-query";
import { DateRangeFilters, FilterField } from "@/components/ui/filters";
import Link from "next/link";
import { usePathname, useSearchParams } from "next/navigation";
import { PaginatedTable } from "@/components/ui/paginated-table";
import { EmptyState } from "@/components/ui/states";
import { LIVE_TICK_MS, NOW_TICK_MS, RelativeTime, useHydrated, useNow } from "@/components/ui/time";
import { INLINE_WORKFLOW_NAME, RUN_LIST_STATUSES, TRIGGER_TYPES } from "@/lib/schemas/runs";
import { useTRPC } from "@/lib/trpc/client";
import { WAITING_PRESETS, formatDuration, isActiveRun, runDuration, statusLabel } from "./format";
import { RunStatusBadge } from "./run-status-badge";
import {
  filtersFromParams,
  filtersToParams,
  filtersToQuery,
  hasFilters,
  type RunFilters,
} from "./runs-filters";

/**
 * A new run (from a webhook, a schedule, another tab) appears within 2 s: the list polls at this
 * pace whether or not anything is active (only while the tab is visible — TanStack Query's
 * default), since nothing on the page knows a run is about to start.
 */
export const RUNS_POLL_MS = 1_500;

/**
 * Runs, newest first, filtered through the URL. With `workflowId` the list is fixed to one
 * workflow (the workflow page's Runs tab). Polls every 1.5 s (RUNS_POLL_MS).
 */
export function RunsList({ workflowId }: { workflowId?: string }) {
  const trpc = useTRPC();
  const pathname = usePathname();
  const params = useSearchParams();
  const filters: RunFilters = {
    ...filtersFromParams(new URLSearchParams(params.toString())),
    ...(workflowId ? { workflowId } : {}),
  };
  // Native replaceState updates the URL at once (Next syncs useSearchParams with it), so quick
  // successive clicks each build on the previous one instead of on a stale render.
  const replaceUrl = (qs: string) =>
    window.history.replaceState(null, "", qs ? `${pathname}?${qs}` : pathname);
  const set = (patch: Partial<RunFilters>) => {
    const current = filtersFromParams(new URLSearchParams(window.location.search));
    const next = filtersToParams({ ...current, ...(workflowId ? { workflowId } : {}), ...patch });
    if (workflowId) next.delete("workflow");
    replaceUrl(next.toString());
  };
  const workflows = useQuery({
    ...trpc.workflow.list.queryOptions({ limit: 200 }),
    enabled: !workflowId,
  });
  const list = useInfiniteQuery({
    ...trpc.run.list.infiniteQueryOptions(filtersToQuery(filters), {
      getNextPageParam: (last) => last.nextCursor ?? undefined,
      initialCursor: undefined,
    }),
    refetchInterval: RUNS_POLL_MS,
  });
  const items = list.data?.pages.flatMap((p) => p.items) ?? [];
  // Active runs' durations run to "now", by the second; not known while server-rendering.
  const now = useNow(items.some((r) => isActiveRun(r.status)) ? LIVE_TICK_MS : NOW_TICK_MS);
  const filtered = hasFilters(filters, Boolean(workflowId));
  const hydrated = useHydrated();

  return (
    <section className="card" aria-label="Runs">
      <div className="card-head" role="search" aria-label="Filter runs">
        {/* Disabled until hydrated: a choice made before React listens would be lost (the
            select reverts to the URL's value and the list never filters). */}
        <fieldset className="plain row grow" style={{ flexWrap: "wrap" }} disabled={!hydrated}>
          {!workflowId ? (
            <FilterField label="Workflow">
              <select
                value={filters.workflowId ?? ""}
                onChange={(e) => set({ workflowId: e.target.value || undefined })}
                style={{ width: 200 }}
              >
                <option value="">All workflows</option>
                <option value={INLINE_WORKFLOW_NAME}>Inline runs</option>
                {workflows.data?.items.map((w) => (
                  <option key={w.id} value={w.id}>
                    {w.name}
                  </option>
                ))}
              </select>
            </FilterField>
          ) : null}
          <FilterField label="Trigger">
            <select
              value={filters.trigger ?? ""}
              onChange={(e) =>
                set({ trigger: (e.target.value || undefined) as RunFilters["trigger"] })
              }
              style={{ width: 130 }}
            >
              <option value="">Any trigger</option>
              {TRIGGER_TYPES.map((t) => (
                <option key={t} value={t}>
                  {t}
                </option>
              ))}
            </select>
          </FilterField>
          <DateRangeFilters from={filters.from} to={filters.to} onChange={set} />
          <FilterField label="Waiting longer than">
            <select
              value={filters.waitingMinutes ? String(filters.waitingMinutes) : ""}
              onChange={(e) => set({ waitingMinutes: Number(e.target.value) || undefined })}
              style={{ width: 140 }}
            >
              <option value="">—</option>
              {WAITING_PRESETS.map((w) => (
                <option key={w.minutes} value={w.minutes}>
                  {w.label}
                </option>
              ))}
            </select>
          </FilterField>
          <label className="row" style={{ gap: 6, alignSelf: "flex-end", paddingBottom: 6 }}>
            <input
              type="checkbox"
              checked={filters.retrying}
              onChange={(e) => set({ retrying: e.target.checked })}
              style={{ width: "auto" }}
            />
            Retrying
          </label>
          <label className="row" style={{ gap: 6, alignSelf: "flex-end", paddingBottom: 6 }}>
            <input
              type="checkbox"
              checked={!!filters.tests}
              onChange={(e) => set({ tests: e.target.checked || undefined })}
              style={{ width: "auto" }}
            />
            Test runs
          </label>
          {filtered ? (
            <button
              type="button"
              className="btn btn-sm btn-ghost"
              style={{ alignSelf: "flex-end" }}
              onClick={() => replaceUrl("")}
            >
              Clear filters
            </button>
          ) : null}
        </fieldset>
      </div>
      <div className="card-body" style={{ paddingTop: 8, paddingBottom: 8 }}>
        <fieldset
          className="plain row"
          aria-label="Status"
          style={{ flexWrap: "wrap", gap: 6 }}
          disabled={!hydrated}
        >
          <span className="small muted">Status</span>
          {RUN_LIST_STATUSES.map((s) => {
            const on = filters.status.includes(s);
            return (
              <button
                key={s}
                type="button"
                className={on ? "btn btn-sm btn-primary" : "btn btn-sm"}
                aria-pressed={on}
                onClick={() =>
                  set({
                    status: on ? filters.status.filter((x) => x !== s) : [...filters.status, s],
                  })
                }
              >
                {statusLabel(s)}
              </button>
            );
          })}
        </fieldset>
      </div>
      <PaginatedTable
        query={list}
        noun="runs"
        loadingLabel="Loading runs"
        rowKey={(r) => r.id}
        empty={
          filtered ? (
            <EmptyState title="No runs match these filters">
              Change or clear the filters (above) to see more.
            </EmptyState>
          ) : (
            <EmptyState
              title="No runs yet"
              action={
                workflowId ? undefined : (
                  <Link className="btn btn-sm" href="/workflows">
                    Open workflows
                  </Link>
                )
              }
            >
              Runs appear here as soon as a workflow starts: run one from its page.
            </EmptyState>
          )
        }
        columns={[
          {
            key: "run",
            header: "Run",
            cell: (r) => (
              <>
                <Link href={`/runs/${r.id}`} className="mono">
                  {r.id}
                </Link>
                {r.errorMessage ? (
                  <div className="small faint" title={r.errorMessage}>
                    {r.errorMessage.length > 80
                      ? `${r.errorMessage.slice(0, 80)}…`
                      : r.errorMessage}
                  </div>
                ) : null}
              </>
            ),
          },
          {
            key: "status",
            header: "Status",
            cell: (r) => (
              <>
                <RunStatusBadge status={r.status} />
                {r.isTest ? (
                  <>
                    {" "}
                    <span className="badge" title="A test run from the editor">
                      Test
                    </span>
                  </>
                ) : null}
              </>
            ),
          },
          !workflowId && {
            key: "workflow",
            header: "Workflow",
            cell: (r) =>
              r.workflowId ? (
                <>
                  <Link href={`/workflows/${r.workflowId}`}>{r.workflowName}</Link>{" "}
                  <span className="faint small">v{r.version}</span>
                </>
              ) : (
                <span className="badge" title="An unsaved definition, run inline">
                  Inline
                </span>
              ),
          },
          { key: "trigger", header: "Trigger", cell: (r) => r.triggerType },
          {
            key: "initiator",
            header: "Initiator",
            cell: (r) => r.initiatorName ?? r.initiatorType,
          },
          {
            key: "started",
            header: "Started",
            cell: (r) => <RelativeTime date={r.startedAt ?? r.createdAt} />,
          },
          {
            key: "duration",
            header: "Duration",
            cell: (r) => (now === null ? "—" : formatDuration(runDuration(r, now))),
          },
        ]}
      />
    </section>
  );
}
