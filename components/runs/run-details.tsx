"use client";
import Link from "next/link";
import { RelativeTime } from "@/components/ui/time";
import { JsonBlock } from "./json-block";
import { RunOutcome } from "./run-outcome";
import { RunStatusBadge } from "./run-status-badge";
import styles from "./run-view.module.css";

/** The run's input beside its output (or why there is none). */
export function RunInputOutput({
  run: r,
}: {
  run: { id: string; status: string; input: unknown; output: unknown; error: unknown };
}) {
  return (
    <div className={styles.details}>
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
  );
}

/** Runs this run started (sub-workflow steps), each with the step that started it. */
export function RunChildren({
  childRuns,
}: {
  childRuns: readonly {
    id: string;
    status: string;
    parentStepId: string | null;
    createdAt: Date;
  }[];
}) {
  if (childRuns.length === 0) return null;
  return (
    <section className="card" aria-labelledby="children-h">
      <div className="card-head">
        <h2 id="children-h">Child runs</h2>
      </div>
      <ul className="card-body stack" style={{ listStyle: "none", margin: 0 }}>
        {childRuns.map((c) => (
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
  );
}
