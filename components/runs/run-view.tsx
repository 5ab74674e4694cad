"use client";
import { useMutation, useQuery, useQueryClient } from "@tanstack/react-query";
import { useMemo, useState } from "react";
import { useRole } from "@/components/shell/role-context";
import { ConfirmDialog } from "@/components/ui/dialog";
import { ErrorState, LoadingRows } from "@/components/ui/states";
import { LIVE_TICK_MS, NOW_TICK_MS, useNow } from "@/components/ui/time";
import { useToast } from "@/components/ui/toast";
import { useTRPC } from "@/lib/trpc/client";
import type { InputSpec } from "@/lib/workflow/definition";
import { ApprovalGate } from "./approval-gate";
import { firstFailedStep, isActiveRun } from "./format";
import { RerunDialog } from "./rerun-dialog";
import { RunChildren, RunInputOutput } from "./run-details";
import { RunDecisions } from "./run-decisions";
import { RunGraphPanel, type RunDefinition } from "./run-graph-panel";
import { RunHeader } from "./run-header";
import { RunSummary } from "./run-summary";
import { RunTimeline } from "./run-timeline";
import { useRunLive } from "./use-run-live";
import { useSelectedStep } from "./use-selected-step";

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
  const [selected, setSelected] = useSelectedStep();
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

  const def = (run.data?.definition ?? {}) as RunDefinition;
  const attempts = useMemo(() => steps.data ?? [], [steps.data]);

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

      <RunGraphPanel
        runId={r.id}
        version={r.version}
        definition={def}
        attempts={attempts}
        steps={{
          isPending: steps.isPending,
          error: steps.error?.message ?? null,
          refetch: () => void steps.refetch(),
        }}
        reusedStepIds={r.reusedStepIds}
        rerunOfRunId={r.rerunOfRunId}
        selected={selected}
        onSelect={setSelected}
        onRerunFrom={mayRerun ? (stepId) => setRerunOpen({ from: stepId }) : undefined}
        now={now}
      />

      <RunTimeline
        attempts={attempts}
        edges={def.edges}
        runStartedAt={r.startedAt}
        now={active ? now : null}
        selected={selected}
        onSelect={setSelected}
      />

      <RunInputOutput run={r} />
      <RunChildren childRuns={r.children} />

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
