"use client";
import { useMemo, type HTMLAttributes, type ReactNode } from "react";
import { ErrorState, LoadingRows } from "./states";
import styles from "./paginated-table.module.css";

/**
 * The part of a TanStack infinite query the table reads: pages of `{ items }` fetched by cursor.
 * Any `useInfiniteQuery(trpc.x.list.infiniteQueryOptions(…))` result fits.
 */
export interface PagedQuery<Row> {
  data?: { pages: readonly { items: readonly Row[] }[] };
  isPending: boolean;
  error: { message: string } | null;
  hasNextPage: boolean;
  isFetchingNextPage: boolean;
  refetch: () => unknown;
  fetchNextPage: () => unknown;
}

export interface Column<Row> {
  /** Stable key of the column (React key). */
  key: string;
  header: ReactNode;
  cell: (row: Row) => ReactNode;
  className?: string;
}

/**
 * One cursor-paged list as a table: a skeleton while the first page loads (aria-busy, named by
 * `loadingLabel`), an error with Try again, the empty state, and a "Load more" button that keeps
 * focus while the next page arrives and announces how many rows are shown.
 */
export function PaginatedTable<Row>({
  query,
  columns,
  rowKey,
  rowProps,
  arrange,
  empty,
  loadingLabel,
  noun,
  scroll,
}: {
  query: PagedQuery<Row>;
  columns: readonly (Column<Row> | null | false)[];
  rowKey: (row: Row) => string | number;
  rowProps?: (row: Row) => HTMLAttributes<HTMLTableRowElement> & Record<`data-${string}`, string>;
  /** Reorders or filters the loaded rows (e.g. pending first) before they are shown. */
  arrange?: (rows: Row[]) => Row[];
  /** Shown when the query has no rows: say why, and what to do next. */
  empty: ReactNode;
  /** e.g. "Loading runs" — the accessible name of the skeleton. */
  loadingLabel: string;
  /** Plural name of a row, e.g. "runs", for the "Showing 50 runs" line. */
  noun: string;
  /** The table scrolls sideways inside its card instead of stretching it. */
  scroll?: boolean;
}) {
  const { data } = query;
  const rows = useMemo(() => {
    const all = data?.pages.flatMap((p) => p.items) ?? [];
    return arrange ? arrange(all) : all;
  }, [data, arrange]);
  const shown = columns.filter((c): c is Column<Row> => Boolean(c));

  if (query.isPending) return <LoadingRows rows={5} label={loadingLabel} />;
  if (query.error)
    return <ErrorState message={query.error.message} onRetry={() => void query.refetch()} />;
  if (rows.length === 0) return <>{empty}</>;

  const table = (
    <table className="table">
      <thead>
        <tr>
          {shown.map((c) => (
            <th key={c.key} scope="col" className={c.className}>
              {c.header}
            </th>
          ))}
        </tr>
      </thead>
      <tbody>
        {rows.map((row) => (
          <tr key={rowKey(row)} {...rowProps?.(row)}>
            {shown.map((c) => (
              <td key={c.key} className={c.className}>
                {c.cell(row)}
              </td>
            ))}
          </tr>
        ))}
      </tbody>
    </table>
  );
  const loading = query.isFetchingNextPage;
  return (
    <>
      {scroll ? <div className={styles.scroll}>{table}</div> : table}
      <div className={`card-body ${styles.foot}`}>
        <span className="small muted" role="status">
          Showing {rows.length} {noun}
          {query.hasNextPage ? "" : " (all)"}
        </span>
        {query.hasNextPage ? (
          // aria-disabled rather than disabled: a disabled button drops keyboard focus, and the
          // person pressing Enter on it should stay on it for the next page.
          <button
            type="button"
            className="btn btn-sm"
            aria-disabled={loading || undefined}
            aria-busy={loading || undefined}
            onClick={() => {
              if (!loading) void query.fetchNextPage();
            }}
          >
            {loading ? (
              <>
                <span className="spinner" aria-hidden /> Loading more {noun}…
              </>
            ) : (
              "Load more"
            )}
          </button>
        ) : null}
      </div>
    </>
  );
}
