"use client";
import { useMemo } from "react";
import { RunGraph } from "@/components/workflow-graph/run-graph";
import { statusesFromAttempts, type LayoutInput } from "@/components/workflow-graph/layout";
import type { StepAttemptView } from "./step-attempt";
import { StepDrawer } from "./step-drawer";
import { StepList } from "./step-list";
import styles from "./run-view.module.css";

export type RunDefinition = {
  steps?: { id: string; type: string; name?: string }[];
  edges?: { from: string; to: string; port?: string }[];
  layout?: { positions?: Record<string, { x: number; y: number }> };
};

/**
 * The run's graph and step list side by side; with a step open (`selected`), its drawer takes
 * the column beside the graph and the list moves under it.
 */
export function RunGraphPanel({
  runId,
  version,
  definition,
  attempts,
  steps,
  reusedStepIds,
  rerunOfRunId,
  selected,
  onSelect,
  onRerunFrom,
  now,
}: {
  runId: string;
  version: string;
  definition: RunDefinition;
  attempts: readonly StepAttemptView[];
  /** The step attempts query's state, for the list's loading and error states. */
  steps: { isPending: boolean; error: string | null; refetch: () => void };
  reusedStepIds: readonly string[];
  rerunOfRunId: string | null;
  selected: string | null;
  onSelect: (path: string | null) => void;
  /** Present when the run may be rerun from a step. */
  onRerunFrom?: (stepId: string) => void;
  now: number | null;
}) {
  const layout: LayoutInput = useMemo(
    () => ({
      steps: definition.steps ?? [],
      edges: definition.edges,
      positions: definition.layout?.positions,
      statuses: {
        ...Object.fromEntries(reusedStepIds.map((id) => [id, "reused"])),
        ...statusesFromAttempts(attempts),
      },
    }),
    [definition.steps, definition.edges, definition.layout?.positions, attempts, reusedStepIds],
  );
  const isStep = selected !== null && (definition.steps ?? []).some((s) => s.id === selected);

  return (
    <div className={`${styles.layout} ${selected ? styles.open : ""}`}>
      <section className={`card ${styles.graph}`} aria-labelledby="graph-h">
        <div className="card-head">
          <h2 id="graph-h">Graph</h2>
          <span className="small muted">Snapshot of v{version}</span>
        </div>
        <RunGraph layout={layout} selected={selected} onSelect={onSelect} />
      </section>
      <StepList
        className={styles.steps}
        attempts={attempts}
        isPending={steps.isPending}
        error={steps.error}
        onRetry={steps.refetch}
        reusedStepIds={reusedStepIds}
        rerunOfRunId={rerunOfRunId}
        selected={selected}
        onSelect={onSelect}
        now={now}
      />
      {selected ? (
        <StepDrawer
          className={styles.drawer}
          runId={runId}
          path={selected}
          attempts={attempts.filter((a) => a.path === selected || a.stepId === selected)}
          now={now}
          onRerun={onRerunFrom && isStep ? () => onRerunFrom(selected) : undefined}
          onClose={() => onSelect(null)}
        />
      ) : null}
    </div>
  );
}
