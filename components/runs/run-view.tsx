"use client";
import { useMutation, useQuery, useQueryClient } from "@tanstack/react-query";
import Link from "next/link";
import { usePathname, useSearchParams } from "next/navigation";
import { useCallback, useMemo, useState } from "react";
import { useRole } from "@/components/shell/role-context";
import { ConfirmDialog } from "@/components/ui/dialog";
import { ErrorState, LoadingRows } from "@/components/ui/states";
import { LIVE_TICK_MS, NOW_TICK_MS, RelativeTime, useNow } from "@/components/ui/time";
import { useToast } from "@/components/ui/toast";
import { RunGraph } from "@/components/workflow-graph/run-graph";
import { statusesFromAttempts, type LayoutInput } from "@/components/workflow-graph/layout";
import { useTRPC } from "@/lib/trpc/client";
import type { InputSpec } from "@/lib/workflow/definition";
import { ApprovalGate } from "./approval-gate";
import { firstFailedStep, isActiveRun } from "./format";
import { JsonBlock } from "./json-block";
import { RerunDialog } from "./rerun-dialog";
import { RunDecisions } from "./run-decisions";
import { RunHeader } from "./run-header";
import { RunOutcome } from "./run-outcome";
import { RunStatusBadge } from "./run-status-badge";
import { RunSummary } from "./run-summary";
import { RunTimeline } from "./run-timeline";
import { StepDrawer } from "./step-drawer";
import { StepList } from "./step-list";
import { useRunLive } from "./use-run-live";
import styles from "./run-view.module.css";

type Definition = {
  steps?: { id: string; type: string; name?: string }[];
  edges?: { from: string; to: string; port?: string }[];
  layout?: { positions?: Record<string, { x: number; y: number }> };
};

/**
 * A run's page: header and summary, decisions in words, open gates, the graph with the step
 * drawer beside it (`?step=<path>`), the step list, the waterfall timeline, input and output.
 */
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
  // The open step lives in the URL (?step=<path>), so it can be linked to. Native
  // replaceState updates the URL at once and Next syncs useSearchParams with it.
  const pathname = usePathname();
  const selected = useSearchParams().get("step");
  const setSelected = useCallback(
    (path: string | null) => {
      const params = new URLSearchParams(window.location.search);
      if (path) params.set("step", path);
      else params.delete("step");
      const qs = params.toString();
      window.history.replaceState(null, "", qs ? `${pathname}?${qs}` : pathname);
    },
    [pathname],
  );
  const closeStep = useCallback(() => setSelected(null), [setSelected]);
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
  const stepIds = (def.steps ?? []).map((s) => s.id);
  const mayRerun = can("editor") && !active && !r.parentRunId;

  return (
    <div className="stack" style={{ gap: 16 }}>
      <RunHeader
        run={r}
        canCancel={can("editor") && active}
        canRerun={mayRerun}
        onCancel={() => setCancelling(true)}
        onRerun={() => setRerunOpen({ from: null })}
      />
      <RunSummary run={r} now={now} />
      <RunDecisions decisions={r.decisions} onSelect={setSelected} />

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

      <div className={`${styles.layout} ${selected ? styles.open : ""}`}>
        <section className={`card ${styles.graph}`} aria-labelledby="graph-h">
          <div className="card-head">
            <h2 id="graph-h">Graph</h2>
            <span className="small muted">Snapshot of v{r.version}</span>
          </div>
          <RunGraph layout={layout} selected={selected} onSelect={setSelected} />
        </section>
        <StepList
          className={styles.steps}
          attempts={attempts}
          isPending={steps.isPending}
          error={steps.error?.message ?? null}
          onRetry={() => void steps.refetch()}
          reusedStepIds={r.reusedStepIds}
          rerunOfRunId={r.rerunOfRunId}
          selected={selected}
          onSelect={setSelected}
          now={now}
        />
        {selected ? (
          <StepDrawer
            className={styles.drawer}
            runId={r.id}
            path={selected}
            attempts={attempts.filter((a) => a.path === selected || a.stepId === selected)}
            now={now}
            onRerun={
              mayRerun && stepIds.includes(selected)
                ? () => setRerunOpen({ from: selected })
                : undefined
            }
            onClose={closeStep}
          />
        ) : null}
      </div>

      <RunTimeline
        attempts={attempts}
        edges={def.edges}
        runStartedAt={r.startedAt}
        now={active ? now : null}
        selected={selected}
        onSelect={setSelected}
      />

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
