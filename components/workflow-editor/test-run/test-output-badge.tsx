"use client";
import { outputPreview } from "./test-results";
import { useTestRun } from "./test-run-context";
import styles from "./test-run.module.css";

/** A step node's result in the editor's test run: status and a one-line output preview. */
export function TestOutputBadge({ stepId }: { stepId: string }) {
  const result = useTestRun()?.results.get(stepId);
  if (!result) return null;
  const text =
    result.status === "completed"
      ? outputPreview(result.output)
      : outputPreview((result.error as { message?: unknown } | null)?.message ?? result.status);
  return (
    <span
      className={`${styles.badge} ${result.status === "completed" ? styles.ok : styles.bad}`}
      data-testid={`test-output-${stepId}`}
      title={`Test ${result.status}: ${text}`}
    >
      Test: {text}
    </span>
  );
}
