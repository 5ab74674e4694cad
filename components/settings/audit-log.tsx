"use client";
import { useInfiniteQuery } from "@tanstack/react-query";
import { DateRangeFilters, FilterField } from "@/components/ui/filters";
import { usePathname, useSearchParams } from "next/navigation";
import { useState, type FormEvent } from "react";
import { PaginatedTable } from "@/components/ui/paginated-table";
import { EmptyState, ErrorState } from "@/components/ui/states";
import { RelativeTime } from "@/components/ui/time";
import { AUDIT_ACTOR_TYPES, AuditActorType } from "@/lib/schemas/audit";
import styles from "./audit-log.module.css";
import { errorMessage, useTRPC, useTRPCClient } from "@/lib/trpc/client";
import {
  auditFiltersFromParams,
  auditFiltersToParams,
  auditFiltersToQuery,
  hasAuditFilters,
  type AuditFilters,
} from "./audit-filters";

/** The browser export stops here; `GET /api/v1/audit?format=ndjson` streams larger logs. */
const EXPORT_MAX_ROWS = 20_000;
const EXPORT_PAGE = 200;

/**
 * Settings → Audit (admin and above): every recorded event of the workspace, newest first,
 * filtered through the URL, exportable as NDJSON (the filtered entries, paged through audit.list).
 */
export function AuditLog() {
  const trpc = useTRPC();
  const client = useTRPCClient();
  const pathname = usePathname();
  const params = useSearchParams();
  const filters = auditFiltersFromParams(new URLSearchParams(params.toString()));
  const filtered = hasAuditFilters(filters);
  const [exportState, setExportState] = useState<{ busy: boolean; error?: string }>({
    busy: false,
  });
  const replaceUrl = (qs: string) =>
    window.history.replaceState(null, "", qs ? `${pathname}?${qs}` : pathname);
  const set = (patch: Partial<AuditFilters>) => {
    const current = auditFiltersFromParams(new URLSearchParams(window.location.search));
    replaceUrl(auditFiltersToParams({ ...current, ...patch }).toString());
  };
  const list = useInfiniteQuery(
    trpc.audit.list.infiniteQueryOptions(auditFiltersToQuery(filters), {
      getNextPageParam: (last) => last.nextCursor ?? undefined,
      initialCursor: undefined,
    }),
  );

  const applyText = (e: FormEvent<HTMLFormElement>) => {
    e.preventDefault();
    const form = new FormData(e.currentTarget);
    const text = (k: string) => String(form.get(k) ?? "").trim() || undefined;
    set({
      action: text("action"),
      actorId: text("actorId"),
      targetType: text("targetType"),
      targetId: text("targetId"),
    });
  };

  const exportNdjson = async () => {
    setExportState({ busy: true });
    try {
      const lines: string[] = [];
      let cursor: string | undefined;
      do {
        const page = await client.audit.list.query({
          ...auditFiltersToQuery(filters, EXPORT_PAGE),
          cursor,
        });
        for (const e of page.items) lines.push(`${JSON.stringify(e)}\n`);
        cursor = page.nextCursor ?? undefined;
      } while (cursor && lines.length < EXPORT_MAX_ROWS);
      const url = URL.createObjectURL(new Blob(lines, { type: "application/x-ndjson" }));
      const a = document.createElement("a");
      a.href = url;
      a.download = `audit-${new Date().toISOString().slice(0, 10)}.ndjson`;
      a.click();
      // The download reads the blob after this handler returns; free it once it surely has.
      setTimeout(() => URL.revokeObjectURL(url), 60_000);
      setExportState({ busy: false });
    } catch (err) {
      setExportState({ busy: false, error: errorMessage(err) });
    }
  };

  return (
    <section className="card" aria-label="Audit log">
      <div className="card-head" role="search" aria-label="Filter audit log">
        {/* Keyed by the URL so Clear filters and back/forward reset the text fields. */}
        <form
          key={params.toString()}
          className="row grow"
          style={{ flexWrap: "wrap" }}
          onSubmit={applyText}
        >
          <FilterField label="Action">
            <input
              name="action"
              defaultValue={filters.action ?? ""}
              placeholder="secret.updated or secret.*"
              style={{ width: 200 }}
            />
          </FilterField>
          <FilterField label="Actor type">
            <select
              value={filters.actorType ?? ""}
              onChange={(e) =>
                set({ actorType: (e.target.value || undefined) as AuditFilters["actorType"] })
              }
              style={{ width: 130 }}
            >
              <option value="">Anyone</option>
              {AUDIT_ACTOR_TYPES.map((t) => (
                <option key={t} value={t}>
                  {t}
                </option>
              ))}
            </select>
          </FilterField>
          <FilterField label="Actor id">
            <input name="actorId" defaultValue={filters.actorId ?? ""} style={{ width: 160 }} />
          </FilterField>
          <FilterField label="Target type">
            <input
              name="targetType"
              defaultValue={filters.targetType ?? ""}
              placeholder="workflow"
              style={{ width: 120 }}
            />
          </FilterField>
          <FilterField label="Target id">
            <input name="targetId" defaultValue={filters.targetId ?? ""} style={{ width: 160 }} />
          </FilterField>
          <DateRangeFilters from={filters.from} to={filters.to} onChange={set} />
          <button type="submit" className="btn btn-sm" style={{ alignSelf: "flex-end" }}>
            Apply filters
          </button>
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
          <button
            type="button"
            className="btn btn-sm"
            style={{ alignSelf: "flex-end", marginLeft: "auto" }}
            disabled={exportState.busy}
            onClick={() => void exportNdjson()}
          >
            {exportState.busy ? "Exporting…" : "Export NDJSON"}
          </button>
        </form>
      </div>
      {exportState.error ? <ErrorState message={`Export failed: ${exportState.error}`} /> : null}
      <PaginatedTable
        query={list}
        noun="entries"
        loadingLabel="Loading audit log"
        rowKey={(e) => e.id}
        scroll
        empty={
          <EmptyState
            title={filtered ? "No audit entries match these filters" : "No audit entries yet"}
          >
            {filtered
              ? "Change or clear the filters to see more."
              : "Changes to members, tokens, secrets, policies, workflows and triggers are recorded here."}
          </EmptyState>
        }
        columns={[
          { key: "when", header: "When", cell: (e) => <RelativeTime date={e.createdAt} /> },
          {
            key: "who",
            header: "Who",
            cell: (e) => (
              <>
                <span className="faint small">{e.actorType}</span>{" "}
                {e.actorId ? (
                  <button
                    type="button"
                    className="btn btn-sm btn-ghost"
                    title={`Only entries by ${e.actorId}`}
                    onClick={() =>
                      set({
                        actorType: AuditActorType.safeParse(e.actorType).data,
                        actorId: e.actorId!,
                      })
                    }
                  >
                    {e.actorName ?? e.actorId}
                  </button>
                ) : (
                  "—"
                )}
              </>
            ),
          },
          { key: "action", header: "Action", className: "mono", cell: (e) => e.action },
          {
            key: "target",
            header: "Target",
            cell: (e) => (
              <>
                {e.targetType ? <span className="faint small">{e.targetType} </span> : null}
                {e.targetId ? (
                  <button
                    type="button"
                    className="btn btn-sm btn-ghost mono"
                    title={`Only entries about ${e.targetId}`}
                    onClick={() =>
                      set({ targetType: e.targetType ?? undefined, targetId: e.targetId! })
                    }
                  >
                    {e.targetId}
                  </button>
                ) : (
                  "—"
                )}
              </>
            ),
          },
          {
            key: "from",
            header: "From",
            className: styles.from,
            cell: (e) =>
              e.clientAddress || e.userAgent ? (
                <>
                  <span className="mono small">{e.clientAddress ?? "unknown address"}</span>
                  {e.userAgent ? (
                    <span className={`faint small ${styles.agent}`} title={e.userAgent}>
                      {e.userAgent}
                    </span>
                  ) : null}
                </>
              ) : (
                <span className="faint small" title="Not made in a web or API request">
                  —
                </span>
              ),
          },
          {
            key: "details",
            header: "Details",
            cell: (e) =>
              Object.keys(e.details).length ? (
                <pre className={styles.details} aria-label="Details" tabIndex={0}>
                  {JSON.stringify(e.details, null, 2)}
                </pre>
              ) : (
                "—"
              ),
          },
        ]}
      />
    </section>
  );
}
