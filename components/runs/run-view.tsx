"use client";
import { useMutation, useQuery, useQueryClient } from "@tanstack/react-query";
import Link from "next/link";
import { useMemo, useState } from "react";
import { useRole } from "@/components/shell/role-context";
import { ConfirmDialog } from "@/components/ui/dialog";
import { CopyButton } from "@/components/ui/copy-button";
import { ErrorState, LoadingRows } from "@/components/ui/states";
import { LIVE_TICK_MS, NOW_TICK_MS, RelativeTime, useNow } from "@/components/ui/time";
import { useToast } from "@/components/ui/toast";
import { RunGraph } from "@/components/workflow-graph/run-graph";
import { statusesFromAttempts, type LayoutInput } from "@/components/workflow-graph/layout";
import { useTRPC } from "@/lib/trpc/client";
import { STEP_CATALOG } from "@/lib/workflow/catalog";
import type { InputSpec } from "@/lib/workflow/definition";
import { ApprovalGate } from "./approval-gate";
import {
  attemptDuration,
  conditionChecksOf,
  errorMessage,
  firstFailedStep,
  formatCheck,
  formatDuration,
  isActiveRun,
  runDuration,
  statusLabel,
} from "./format";
import { JsonBlock } from "./json-block";
import { RerunDialog } from "./rerun-dialog";
import { RunStatusBadge } from "./run-status-badge";
import { useRunLive } from "./use-run-live";

type Definition = {
  steps?: { id: string; type: string; name?: string }[];
  edges?: { from: string; to: string; port?: string }[];
  layout?: { positions?: Record<string, { x: number; y: number }> };
};

const typeLabel = (t: string) =>
  (STEP_CATALOG as Record<string, { label: string } | undefined>)[t]?.label ?? t;

export function RunView({ runId }: { runId: string }) {
  const trpc = useTRPC();
  const qc = useQueryClient();
  const toast = useToast();
  const { can } = useRole();
  const run = useQuery(trpc.run.get.queryOptions({ runId }));
  const steps = useQuery(trpc.run.steps.queryOptions({ runId }));
  const active = run.data ? isActiveRun(run.data.status) : false;
  // An active run's duration (and a waiting step's) runs to "now", by the second; not known
  // while server-rendering (see useNow).
  const now = useNow(active ? LIVE_TICK_MS : NOW_TICK_MS);
  useRunLive(runId, active);
  const [selected, setSelected] = useState<string | null>(null);
  const [cancelling, setCancelling] = useState(false);
  // Which button opened the rerun dialog: "Rerun from here…" names its step, "Rerun…" none.
  const [rerunOpen, setRerunOpen] = useState<{ from: string | null } | null>(null);
  const cancel = useMutation(
    trpc.run.cancel.mutationOptions({
      onSuccess: async (r) => {
        setCancelling(false);
        toast(r.status === "cancelled" ? "Run cancelled" : "Cancelling…");
        await qc.invalidateQueries({ queryKey: trpc.run.get.queryKey({ runId }) });
      },
    }),
  );

  const def = (run.data?.definition ?? {}) as Definition;
  const attempts = useMemo(() => steps.data ?? [], [steps.data]);
  const layout: LayoutInput = useMemo(
    () => ({
      steps: def.steps ?? [],
      edges: def.edges,
      positions: def.layout?.positions,
      statuses: {
        ...Object.fromEntries((run.data?.reusedStepIds ?? []).map((id) => [id, "reused"])),
        ...statusesFromAttempts(attempts),
      },
    }),
    [def.steps, def.edges, def.layout?.positions, attempts, run.data?.reusedStepIds],
  );

  if (run.error)
    return (
      <div className="card">
        <ErrorState
          message={
            run.error.data?.code === "NOT_FOUND"
              ? "This run does not exist or was deleted."
              : run.error.message
          }
          onRetry={() => void run.refetch()}
        />
      </div>
    );
  if (run.isPending)
    return (
      <div className="card">
        <LoadingRows rows={5} label="Loading run" />
      </div>
    );
  const r = run.data;
  const err = errorMessage(r.error);
  const stepIds = (def.steps ?? []).map((s) => s.id);
  const byPath = new Map<string, typeof attempts>();
  for (const a of attempts) byPath.set(a.path, [...(byPath.get(a.path) ?? []), a]);
  const selectedAttempts = selected
    ? attempts.filter((a) => a.path === selected || a.stepId === selected)
    : [];

  return (
    <div className="stack" style={{ gap: 16 }}>
      <div className="page-head">
        <div>
          <h1 className="row" style={{ gap: 10 }}>
            <span>Run</span> <span className="mono">{r.id}</span>
            <RunStatusBadge status={r.status} />
          </h1>
          <p className="row" style={{ flexWrap: "wrap" }}>
            {r.workflowId ? (
              <>
                <Link href={`/workflows/${r.workflowId}`}>{r.workflowName}</Link>
                <span className="badge">v{r.version}</span>
              </>
            ) : (
              <span className="badge" title="An unsaved definition, run inline">
                Inline
              </span>
            )}
            <span>
              trigger <strong>{r.triggerType}</strong>
            </span>
            <span>
              by <strong>{r.initiatorName ?? r.initiatorType}</strong>
            </span>
            {r.repository ? (
              <span title={r.repository.url}>
                repository <strong className="mono">{r.repository.ref}</strong>
                {" @ "}
                {r.repository.sha ? (
                  <span className="mono" aria-label={`commit ${r.repository.sha}`}>
                    {r.repository.sha.slice(0, 12)}
                  </span>
                ) : (
                  <span className="muted">not resolved</span>
                )}
              </span>
            ) : null}
            {r.parentRunId ? (
              <span>
                child of <Link href={`/runs/${r.parentRunId}`}>{r.parentRunId}</Link>
              </span>
            ) : null}
            {r.rerunOfRunId ? (
              <span>
                rerun of <Link href={`/runs/${r.rerunOfRunId}`}>{r.rerunOfRunId}</Link>
                {r.rerunFromStepId ? (
                  <>
                    {" "}
                    from <span className="mono">{r.rerunFromStepId}</span>
                  </>
                ) : null}
              </span>
            ) : null}
          </p>
        </div>
        <div className="row">
          <CopyButton value={r.id} label="Copy run id" />
          {r.workflowId ? (
            <Link className="btn" href={`/workflows/${r.workflowId}/edit?run=${r.id}`}>
              Open in editor
            </Link>
          ) : null}
          {can("editor") && active ? (
            <button
              type="button"
              className="btn btn-danger"
              disabled={r.status === "cancel_requested"}
              onClick={() => setCancelling(true)}
            >
              Cancel run
            </button>
          ) : null}
          {can("editor") && !active && !r.parentRunId ? (
            <button type="button" className="btn" onClick={() => setRerunOpen({ from: null })}>
              Rerun…
            </button>
          ) : null}
        </div>
      </div>

      <section className="card" aria-label="Run summary">
        <div className="card-body run-meta">
          <div>
            <div className="small muted">Created</div>
            <RelativeTime date={r.createdAt} />
          </div>
          <div>
            <div className="small muted">Started</div>
            <RelativeTime date={r.startedAt} />
          </div>
          <div>
            <div className="small muted">Finished</div>
            <RelativeTime date={r.finishedAt} />
          </div>
          <div>
            <div className="small muted">Duration</div>
            <span data-testid="run-duration">
              {now === null ? "—" : formatDuration(runDuration(r, now))}
            </span>
          </div>
          <div>
            <div className="small muted">Step attempts</div>
            {r.stepAttempts}
          </div>
          <div>
            <div className="small muted">Engine execution</div>
            <span data-testid="run-execution">
              {r.executionId === null ? (
                <span className="muted">not started</span>
              ) : r.executionUrl ? (
                <a className="mono" href={r.executionUrl} target="_blank" rel="noreferrer">
                  {r.executionId}
                </a>
              ) : (
                <span className="mono">{r.executionId}</span>
              )}
            </span>
          </div>
        </div>
        {err ? (
          <div className="card-body">
            <div className="form-error" role="alert" aria-label="Run error">
              {err}
            </div>
          </div>
        ) : null}
      </section>

      {r.pendingApprovals.length ? (
        <section className="card" aria-labelledby="gates-h">
          <div className="card-head">
            <h2 id="gates-h">Waiting for approval</h2>
          </div>
          <div className="card-body stack">
            {r.pendingApprovals.map((a) => (
              <ApprovalGate
                key={a.id}
                gate={{ ...a, runId: r.id, workflowId: r.workflowId ?? undefined }}
              />
            ))}
          </div>
        </section>
      ) : null}

      <div className="run-layout">
        <section className="card" aria-labelledby="graph-h">
          <div className="card-head">
            <h2 id="graph-h">Graph</h2>
            <span className="small muted">Snapshot of v{r.version}</span>
          </div>
          <RunGraph layout={layout} selected={selected} onSelect={setSelected} />
        </section>

        <section className="card" aria-labelledby="steps-h">
          <div className="card-head">
            <h2 id="steps-h">Steps</h2>
          </div>
          {r.reusedStepIds.length ? (
            <div className="card-body small muted" style={{ paddingBottom: 0 }}>
              Reused from <Link href={`/runs/${r.rerunOfRunId}`}>the original run</Link>:{" "}
              {r.reusedStepIds.map((id, i) => (
                <span key={id}>
                  {i ? ", " : ""}
                  <span className="mono">{id}</span>
                </span>
              ))}
            </div>
          ) : null}
          {steps.isPending ? (
            <LoadingRows rows={3} label="Loading steps" />
          ) : steps.error ? (
            <ErrorState message={steps.error.message} onRetry={() => void steps.refetch()} />
          ) : attempts.length === 0 ? (
            <div className="card-body muted">No step has started yet.</div>
          ) : (
            <table className="table" aria-label="Step timeline">
              <thead>
                <tr>
                  <th scope="col">Step</th>
                  <th scope="col">Status</th>
                  <th scope="col">Attempts</th>
                  <th scope="col">Started</th>
                  <th scope="col">Duration</th>
                </tr>
              </thead>
              <tbody>
                {[...byPath.entries()].map(([path, list]) => {
                  const last = list[list.length - 1]!;
                  const retried = list.length > 1;
                  return (
                    <tr
                      key={path}
                      className={selected === path ? "selected" : undefined}
                      data-step={path}
                    >
                      <td>
                        <button
                          type="button"
                          className="btn-link mono"
                          aria-pressed={selected === path}
                          onClick={() => setSelected(path)}
                        >
                          {path}
                        </button>
                        <div className="small faint">{typeLabel(last.stepType)}</div>
                      </td>
                      <td>
                        <RunStatusBadge status={last.status} />
                        {last.port && last.port !== "success" ? (
                          <span className="small muted"> → {last.port}</span>
                        ) : null}
                        {last.skipReason ? (
                          <div className="small faint">{last.skipReason}</div>
                        ) : null}
                      </td>
                      <td>
                        {list.length}
                        {retried ? <span className="badge badge-warn"> retried</span> : null}
                      </td>
                      <td>
                        <RelativeTime date={last.startedAt} />
                      </td>
                      <td>{formatDuration(attemptDuration(last, now))}</td>
                    </tr>
                  );
                })}
              </tbody>
            </table>
          )}
        </section>
      </div>

      {selected ? (
        <section className="card" aria-labelledby="detail-h">
          <div className="card-head">
            <h2 id="detail-h">
              Step <span className="mono">{selected}</span>
            </h2>
            <div className="row">
              {can("editor") && !active && !r.parentRunId && stepIds.includes(selected) ? (
                <button
                  type="button"
                  className="btn btn-sm"
                  onClick={() => setRerunOpen({ from: selected })}
                >
                  Rerun from here…
                </button>
              ) : null}
              <button
                type="button"
                className="btn btn-sm btn-ghost"
                onClick={() => setSelected(null)}
              >
                Close
              </button>
            </div>
          </div>
          <div className="card-body stack">
            {selectedAttempts.length === 0 ? (
              <div className="muted">This step has not run.</div>
            ) : (
              selectedAttempts
                .slice()
                .reverse()
                .map((a) => (
                  <div key={a.id} className="attempt stack">
                    <div className="row">
                      <strong>
                        {a.path !== selected ? `${a.path} · ` : ""}Attempt {a.attempt}
                      </strong>
                      <RunStatusBadge status={a.status} />
                      <span className="small muted">{formatDuration(attemptDuration(a, now))}</span>
                      {a.failureClass ? (
                        <span className="small muted">{a.failureClass} failure</span>
                      ) : null}
                    </div>
                    {a.error ? (
                      <div className="form-error" role="alert">
                        {errorMessage(a.error)}
                      </div>
                    ) : null}
                    <ConditionChecks output={a.output} />
                    <div className="detail-grid">
                      <JsonBlock
                        value={a.input}
                        label="Resolved input"
                        filename={`${r.id}-${a.path}-${a.attempt}-input.json`}
                      />
                      <JsonBlock
                        value={a.output}
                        label="Output"
                        filename={`${r.id}-${a.path}-${a.attempt}-output.json`}
                      />
                    </div>
                    {a.error ? (
                      <JsonBlock
                        value={a.error}
                        label="Error"
                        filename={`${r.id}-${a.path}-${a.attempt}-error.json`}
                      />
                    ) : null}
                  </div>
                ))
            )}
          </div>
        </section>
      ) : null}

      <div className="detail-grid">
        <section className="card" aria-labelledby="input-h">
          <div className="card-head">
            <h2 id="input-h">Input</h2>
          </div>
          <div className="card-body">
            <JsonBlock value={r.input} label="Run input" filename={`${r.id}-input.json`} />
          </div>
        </section>
        <section className="card" aria-labelledby="output-h">
          <div className="card-head">
            <h2 id="output-h">Output</h2>
          </div>
          <div className="card-body">
            <RunOutcome run={r} />
          </div>
        </section>
      </div>

      {r.children.length ? (
        <section className="card" aria-labelledby="children-h">
          <div className="card-head">
            <h2 id="children-h">Child runs</h2>
          </div>
          <ul className="card-body stack" style={{ listStyle: "none", margin: 0 }}>
            {r.children.map((c) => (
              <li key={c.id} className="row">
                <Link href={`/runs/${c.id}`} className="mono">
                  {c.id}
                </Link>
                <RunStatusBadge status={c.status} />
                {c.parentStepId ? (
                  <span className="small muted">
                    from step <span className="mono">{c.parentStepId}</span>
                  </span>
                ) : null}
                <RelativeTime date={c.createdAt} />
              </li>
            ))}
          </ul>
        </section>
      ) : null}

      <ConfirmDialog
        open={cancelling}
        title="Cancel this run?"
        body="Running steps are stopped at their next checkpoint and the run ends cancelled. This cannot be undone (you can rerun it later)."
        confirmLabel="Cancel run"
        danger
        pending={cancel.isPending}
        error={cancel.error?.message}
        onConfirm={() => cancel.mutate({ runId })}
        onClose={() => {
          setCancelling(false);
          cancel.reset();
        }}
      />
      <RerunDialog
        open={rerunOpen !== null}
        onClose={() => setRerunOpen(null)}
        runId={r.id}
        stepIds={stepIds}
        initialStep={rerunOpen?.from ?? null}
        suggestedStep={
          firstFailedStep(stepIds, attempts) ??
          (selected && stepIds.includes(selected) ? selected : null)
        }
        originalInput={r.input}
        inputs={(r.definition as { inputs?: Record<string, InputSpec> }).inputs ?? {}}
        isInline={r.workflowId === null}
      />
    </div>
  );
}

/** A condition step's comparisons with their resolved operands (`input.amount: 250 > 100 → true`). */
function ConditionChecks({ output }: { output: unknown }) {
  const checks = conditionChecksOf(output);
  if (!checks?.length) return null;
  const omitted = (output as { meta?: { omittedChecks?: unknown } }).meta?.omittedChecks;
  return (
    <section aria-label="Evaluated conditions">
      <div className="small muted">Evaluated</div>
      <ul className="mono small" style={{ margin: 0, paddingLeft: 18 }}>
        {checks.map((c, i) => (
          <li key={i}>{formatCheck(c)}</li>
        ))}
      </ul>
      {typeof omitted === "number" && omitted > 0 ? (
        <div className="small muted">…and {omitted} more not recorded.</div>
      ) : null}
    </section>
  );
}

/**
 * Where the output goes: the output once there is one; for a run that ended without one
 * (failed, cancelled, timed out) the reason, so the first place a person looks says what
 * happened; "No output yet." while it is unfinished.
 */
function RunOutcome({
  run: r,
}: {
  run: { id: string; status: string; output: unknown; error: unknown };
}) {
  if (r.status === "completed" || r.output != null)
    return <JsonBlock value={r.output} label="Run output" filename={`${r.id}-output.json`} />;
  if (isActiveRun(r.status)) return <span className="muted">No output yet.</span>;
  const message = errorMessage(r.error);
  return (
    <div className="stack">
      <div className="form-error" role="status" aria-label="Why there is no output">
        No output: the run {statusLabel(r.status)}
        {message ? `: ${message}` : "."}
      </div>
      {r.error ? (
        <JsonBlock value={r.error} label="Error details" filename={`${r.id}-error.json`} />
      ) : null}
    </div>
  );
}
