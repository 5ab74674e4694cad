"use client";
import Link from "next/link";
import { useState } from "react";
import type { TestMode } from "@/lib/workflow/test-run";
import { useTestRun } from "./test-run-context";
import { TestStepDialog } from "./test-step-dialog";
import styles from "./test-run.module.css";

/**
 * The inspector's "Test" section for a top-level step: "Test this step" / "Test up to here",
 * and the step's output or error in the test run shown.
 */
export function TestStepSection({ stepId }: { stepId: string }) {
  const test = useTestRun();
  const [mode, setMode] = useState<TestMode | null>(null);
  if (!test || test.readOnly) return null;
  const result = test.current ? test.results.get(stepId) : undefined;
  const running = test.current && !result && test.runStatus && test.runStatus !== "completed";
  return (
    <section className={styles.section} aria-label="Test">
      <div className={styles.buttons}>
        <button type="button" className="btn btn-sm" onClick={() => setMode("step")}>
          Test this step
        </button>
        <button type="button" className="btn btn-sm" onClick={() => setMode("up_to")}>
          Test up to here
        </button>
      </div>
      {result ? (
        <div className={styles.result} role="group" aria-label="Test output">
          <p className="small">
            <span className={`badge status-${result.status}`}>{result.status}</span> in test run{" "}
            <Link href={`/runs/${test.current!.runId}`} className="mono">
              {test.current!.runId}
            </Link>
          </p>
          <pre className={`mono ${styles.json}`}>
            {JSON.stringify(result.error ?? result.output, null, 2)}
          </pre>
        </div>
      ) : running ? (
        <p className="small muted" role="status">
          Test run {test.runStatus}…
        </p>
      ) : null}
      {mode ? <TestStepDialog stepId={stepId} mode={mode} onClose={() => setMode(null)} /> : null}
    </section>
  );
}
