"use client";
import { useQuery } from "@tanstack/react-query";
import Link from "next/link";
import { useRouter } from "next/navigation";
import { useId, useState } from "react";
import { ErrorState, LoadingRows } from "@/components/ui/states";
import type { JsonDiff } from "@/lib/json-diff";
import { useTRPC } from "@/lib/trpc/client";
import { formatDuration, statusLabel } from "./format";
import { RunCompareSteps } from "./run-compare-steps";
import css from "./run-compare.module.css";

interface Side {
  id: string;
  workflowId: string | null;
  version: string;
  status: string;
  triggerType: string;
  durationMs: number | null;
}

function SideCard({ label, side }: { label: string; side: Side }) {
  return (
    <div className="card stack" style={{ gap: 4 }} aria-label={`Run ${label}`}>
      <strong>
        {label}: <Link href={`/runs/${side.id}`}>{side.id}</Link>
      </strong>
      <span className="small">
        v{side.version} · {statusLabel(side.status)} · {side.triggerType}
        {side.durationMs !== null ? ` · ${formatDuration(side.durationMs)}` : ""}
      </span>
    </div>
  );
}

const count = (d: JsonDiff) => (d.equal ? "same" : `${d.totalChanges} changed`);

/** Pick any run to compare with: a recent run of the workflow, or any run id of the workspace. */
function ComparePicker({
  runId,
  workflowId,
  current,
}: {
  runId: string;
  workflowId: string | null;
  current: string;
}) {
  const trpc = useTRPC();
  const router = useRouter();
  const ids = { select: useId(), text: useId() };
  const [typed, setTyped] = useState("");
  const recent = useQuery({
    ...trpc.run.list.queryOptions({ workflowId: workflowId ?? undefined, limit: 20 }),
    enabled: Boolean(workflowId),
  });
  const listed = (recent.data?.items ?? [])
    .filter((r) => r.id !== runId)
    .map((r) => ({ id: r.id, label: `${r.id} · v${r.version} · ${statusLabel(r.status)}` }));
  // The run compared with now may be older than the recent page: keep it selectable.
  const options = listed.some((o) => o.id === current)
    ? listed
    : [{ id: current, label: current }, ...listed];
  const go = (other: string) =>
    router.push(`/runs/${runId}/compare?with=${encodeURIComponent(other)}`);
  return (
    <div className="row" style={{ flexWrap: "wrap", alignItems: "flex-end" }}>
      {workflowId ? (
        <div className="field">
          <label htmlFor={ids.select}>Compare with a recent run</label>
          <select id={ids.select} value={current} onChange={(e) => go(e.target.value)}>
            {options.map((o) => (
              <option key={o.id} value={o.id}>
                {o.label}
              </option>
            ))}
          </select>
        </div>
      ) : null}
      <form
        className="row"
        style={{ alignItems: "flex-end" }}
        onSubmit={(e) => {
          e.preventDefault();
          if (typed.trim()) go(typed.trim());
        }}
      >
        <div className="field">
          <label htmlFor={ids.text}>Or any run id</label>
          <input id={ids.text} value={typed} onChange={(e) => setTyped(e.target.value)} />
        </div>
        <button type="submit" className="btn">
          Compare
        </button>
      </form>
    </div>
  );
}

/** Run B (this run) against run A (`withRunId`, or the previous run of the workflow). */
export function RunCompare({ runId, withRunId }: { runId: string; withRunId: string | null }) {
  const trpc = useTRPC();
  const diff = useQuery(trpc.run.diff.queryOptions({ runId, ...(withRunId ? { withRunId } : {}) }));
  return (
    <div className="stack">
      <div className="page-head">
        <div>
          <h1>Compare runs</h1>
          <p>
            <Link href={`/runs/${runId}`}>Back to the run</Link>
          </p>
        </div>
      </div>
      {diff.isPending ? (
        <LoadingRows label="Comparing the runs" />
      ) : diff.error ? (
        <ErrorState message={diff.error.message} onRetry={() => void diff.refetch()} />
      ) : (
        <>
          <ComparePicker
            runId={runId}
            workflowId={diff.data.b.workflowId}
            current={diff.data.a.id}
          />
          <div className={css.sides}>
            <SideCard label="A" side={diff.data.a} />
            <SideCard label="B" side={diff.data.b} />
          </div>
          <section className="callout stack" style={{ gap: 4 }} aria-label="Summary">
            <div>
              {diff.data.sameVersion
                ? "Same version."
                : `Versions differ: v${diff.data.a.version} → v${diff.data.b.version}.`}{" "}
              Input {count(diff.data.input)}, output {count(diff.data.output)}.{" "}
              {diff.data.summary.same} same, {diff.data.summary.different} different,{" "}
              {diff.data.summary.onlyA} only in A, {diff.data.summary.onlyB} only in B.
            </div>
            <div>
              {diff.data.summary.pathsDiffer ? (
                <strong>The runs took different paths.</strong>
              ) : (
                "Both runs took the same path."
              )}
              {diff.data.summary.onlyInA.length
                ? ` Only in A: ${diff.data.summary.onlyInA.join(", ")}.`
                : ""}
              {diff.data.summary.onlyInB.length
                ? ` Only in B: ${diff.data.summary.onlyInB.join(", ")}.`
                : ""}
              {diff.data.summary.branchChanged.length
                ? ` Branch changed at: ${diff.data.summary.branchChanged.join(", ")}.`
                : ""}
              {diff.data.summary.loops
                .filter((l) => l.iterationsA !== l.iterationsB)
                .map((l) => ` Loop ${l.stepId}: ${l.iterationsA} → ${l.iterationsB} iterations.`)
                .join("")}
            </div>
          </section>
          <RunCompareSteps steps={diff.data.steps} />
        </>
      )}
    </div>
  );
}
