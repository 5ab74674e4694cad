"use client";
import { useMutation, useQuery, useQueryClient } from "@tanstack/react-query";
import { useMemo, useState } from "react";
import { JsonEditor } from "@/components/code-editor";
import { DefinitionDiffView } from "@/components/diff/definition-diff-view";
import { useRole } from "@/components/shell/role-context";
import { ConfirmDialog } from "@/components/ui/dialog";
import { EmptyState, ErrorState, LoadingRows } from "@/components/ui/states";
import { RelativeTime } from "@/components/ui/time";
import { useToast } from "@/components/ui/toast";
import { useTRPC } from "@/lib/trpc/client";

export function VersionHistory({ workflowId }: { workflowId: string }) {
  const trpc = useTRPC();
  const qc = useQueryClient();
  const toast = useToast();
  const { can } = useRole();
  const versions = useQuery(trpc.workflow.versions.queryOptions({ workflowId }));
  const [viewing, setViewing] = useState<string | null>(null);
  const [compare, setCompare] = useState<{ from: string; to: string } | null>(null);
  const [rollingBack, setRollingBack] = useState<{ id: string; version: string } | null>(null);
  const rollback = useMutation(
    trpc.workflow.rollback.mutationOptions({
      onSuccess: (r) => {
        toast(
          r.alreadyAtVersion
            ? `v${r.version} already has that content: nothing to roll back`
            : `Restored v${r.restored} as v${r.version}`,
        );
        setRollingBack(null);
        void qc.invalidateQueries({ queryKey: trpc.workflow.versions.queryKey({ workflowId }) });
        void qc.invalidateQueries({ queryKey: trpc.workflow.get.queryKey({ workflowId }) });
      },
    }),
  );

  if (versions.isPending)
    return (
      <div className="card">
        <LoadingRows rows={4} label="Loading versions" />
      </div>
    );
  if (versions.error)
    return (
      <div className="card">
        <ErrorState message={versions.error.message} onRetry={() => versions.refetch()} />
      </div>
    );
  const list = versions.data;
  if (list.length === 0)
    return (
      <div className="card">
        <EmptyState title="No published versions">
          Publish the draft from the editor to create version 1.0.0.
        </EmptyState>
      </div>
    );
  const byId = new Map(list.map((v) => [v.id, v]));
  const selectCompare = compare ?? { from: list[1]?.id ?? list[0]!.id, to: list[0]!.id };

  return (
    <div className="stack">
      <section className="card" aria-labelledby="history-h">
        <div className="card-head">
          <h2 id="history-h">History</h2>
          <span className="muted small">Append-only: a rollback adds a version.</span>
        </div>
        <table className="table">
          <thead>
            <tr>
              <th>Version</th>
              <th>Source</th>
              <th>Notes</th>
              <th>Author</th>
              <th>Published</th>
              <th>Hash</th>
              <th>
                <span className="sr-only">Actions</span>
              </th>
            </tr>
          </thead>
          <tbody>
            {list.map((v) => (
              <tr key={v.id}>
                <td>
                  <strong>v{v.version}</strong>{" "}
                  {v.isCurrent ? <span className="badge badge-ok">current</span> : null}
                </td>
                <td>
                  <span className="badge">{v.source.replace("_", " ")}</span>
                  {v.restoredFromVersionId ? (
                    <div className="faint small">
                      restores v{byId.get(v.restoredFromVersionId)?.version ?? "?"}
                    </div>
                  ) : null}
                </td>
                <td className="small">{v.notes || <span className="faint">—</span>}</td>
                <td className="small">{v.authorName ?? v.authorType}</td>
                <td>
                  <RelativeTime date={v.createdAt} />
                </td>
                <td className="mono faint small" title={v.hash}>
                  {v.hash.slice(7, 19)}
                </td>
                <td style={{ textAlign: "right", whiteSpace: "nowrap" }}>
                  <button
                    type="button"
                    className="btn btn-sm"
                    onClick={() => setViewing(viewing === v.id ? null : v.id)}
                    aria-expanded={viewing === v.id}
                  >
                    {viewing === v.id ? "Hide" : "View"}
                  </button>{" "}
                  {can("editor") && !v.isCurrent ? (
                    <button
                      type="button"
                      className="btn btn-sm"
                      onClick={() => setRollingBack({ id: v.id, version: v.version })}
                    >
                      Roll back to this
                    </button>
                  ) : null}
                </td>
              </tr>
            ))}
          </tbody>
        </table>
      </section>
      {viewing ? <VersionViewer workflowId={workflowId} versionId={viewing} /> : null}
      <section className="card" aria-labelledby="compare-h">
        <div className="card-head">
          <h2 id="compare-h">Compare</h2>
          <div className="row">
            <label htmlFor="cmp-from" className="small">
              From
            </label>
            <select
              id="cmp-from"
              value={selectCompare.from}
              onChange={(e) => setCompare({ ...selectCompare, from: e.target.value })}
              style={{ width: 140 }}
            >
              {list.map((v) => (
                <option key={v.id} value={v.id}>
                  v{v.version}
                </option>
              ))}
              <option value="draft">Draft</option>
            </select>
            <label htmlFor="cmp-to" className="small">
              To
            </label>
            <select
              id="cmp-to"
              value={selectCompare.to}
              onChange={(e) => setCompare({ ...selectCompare, to: e.target.value })}
              style={{ width: 140 }}
            >
              {list.map((v) => (
                <option key={v.id} value={v.id}>
                  v{v.version}
                </option>
              ))}
              <option value="draft">Draft</option>
            </select>
          </div>
        </div>
        <div className="card-body">
          <Comparison workflowId={workflowId} from={selectCompare.from} to={selectCompare.to} />
        </div>
      </section>
      <ConfirmDialog
        open={rollingBack !== null}
        title={`Roll back to v${rollingBack?.version}?`}
        body={
          <>
            A new version is published with exactly the content of v{rollingBack?.version}; new runs
            use it. The draft is replaced by that content too (unpublished draft changes are
            discarded). Running runs keep their version.
          </>
        }
        confirmLabel="Roll back"
        pending={rollback.isPending}
        error={rollback.error?.message}
        onClose={() => {
          setRollingBack(null);
          rollback.reset();
        }}
        onConfirm={() => rollingBack && rollback.mutate({ workflowId, versionId: rollingBack.id })}
      />
    </div>
  );
}

function VersionViewer({ workflowId, versionId }: { workflowId: string; versionId: string }) {
  const trpc = useTRPC();
  const v = useQuery(trpc.workflow.version.queryOptions({ workflowId, versionId }));
  return (
    <section className="card" aria-label="Version content">
      <div className="card-head">
        <h2>{v.data ? `v${v.data.version}` : "Version"}</h2>
        {v.data ? <span className="mono faint small">{v.data.hash}</span> : null}
      </div>
      <div className="card-body">
        {v.isPending ? (
          <LoadingRows />
        ) : v.error ? (
          <ErrorState message={v.error.message} />
        ) : (
          <JsonEditor
            value={JSON.stringify(v.data.definition, null, 2)}
            readOnly
            height="50vh"
            modelPath={`sluice://workflow/${versionId}.json`}
            ariaLabel={`Definition of v${v.data.version}`}
          />
        )}
      </div>
    </section>
  );
}

function Comparison({ workflowId, from, to }: { workflowId: string; from: string; to: string }) {
  const trpc = useTRPC();
  const cmp = useQuery(trpc.workflow.compare.queryOptions({ workflowId, from, to }));
  // The service sends both sides as JSON text; the canvas and canonical diff need the values.
  const sides = useMemo(
    () =>
      cmp.data
        ? {
            before: JSON.parse(cmp.data.from.json) as unknown,
            after: JSON.parse(cmp.data.to.json) as unknown,
          }
        : null,
    [cmp.data],
  );
  if (cmp.isPending) return <LoadingRows label="Loading comparison" />;
  if (cmp.error) return <ErrorState message={cmp.error.message} onRetry={() => cmp.refetch()} />;
  const d = cmp.data;
  return (
    <div className="stack">
      {d.diff ? (
        <p className="small muted" style={{ margin: 0 }} data-testid="diff-summary">
          {d.diff.isEmpty
            ? "No differences."
            : `${d.from.label} → ${d.to.label}: ${describeSummary(d.diff.summary)}`}
        </p>
      ) : null}
      <DefinitionDiffView
        before={sides!.before}
        after={sides!.after}
        beforeLabel={d.from.label}
        afterLabel={d.to.label}
        idPrefix="cmp"
      />
    </div>
  );
}

function describeSummary(s: object): string {
  const parts = Object.entries(s as Record<string, unknown>)
    .filter((e): e is [string, number] => e[0] !== "total" && typeof e[1] === "number" && e[1] > 0)
    .map(([k, n]) => `${n} ${k.replace(/([A-Z])/g, " $1").toLowerCase()}`);
  return parts.length ? parts.join(", ") : "metadata changes";
}
