"use client";
import { useMutation, useQuery } from "@tanstack/react-query";
import { useState } from "react";
import { Dialog } from "@/components/ui/dialog";
import { useTRPC, useTRPCClient } from "@/lib/trpc/client";
import type { SideEffectChoice, TestMode } from "@/lib/workflow/test-run";
import { useTestRun } from "./test-run-context";
import styles from "./test-run.module.css";

/**
 * Starts a test run of one step (docs/runs.md "Testing while building"): the input (JSON,
 * prefilled with the last real run's input) and, per side-effecting step the test would run,
 * whether to use its last recorded output or run it for real. One with no recorded output must
 * be confirmed before the test can start.
 */
export function TestStepDialog({
  stepId,
  mode,
  onClose,
}: {
  stepId: string;
  mode: TestMode;
  onClose: () => void;
}) {
  const trpc = useTRPC();
  const client = useTRPCClient();
  const test = useTestRun()!;
  const [definition] = useState(() => test.draft() ?? undefined);
  // A POST (the draft can outgrow a GET's URL), read once per opening of the dialog.
  const preview = useQuery({
    queryKey: ["workflow.previewTestStep", test.workflowId, stepId, mode, definition],
    queryFn: () =>
      client.workflow.previewTestStep.mutate({
        workflowId: test.workflowId,
        stepId,
        mode,
        definition,
      }),
    retry: false,
    staleTime: Infinity,
    gcTime: 0,
  });
  const [inputText, setInputText] = useState<string | null>(null);
  const [choices, setChoices] = useState<Record<string, SideEffectChoice | undefined>>({});
  const start = useMutation(
    trpc.workflow.testStep.mutationOptions({
      onSuccess: (r) => {
        test.show({ runId: r.runId, stepId });
        onClose();
      },
    }),
  );
  const text = inputText ?? JSON.stringify(preview.data?.lastRun?.input ?? {}, null, 2);
  let input: Record<string, unknown> | undefined;
  let inputError: string | null = null;
  try {
    const v: unknown = JSON.parse(text);
    if (v && typeof v === "object" && !Array.isArray(v)) input = v as Record<string, unknown>;
    else inputError = "The input must be a JSON object";
  } catch (e) {
    inputError = `Invalid JSON: ${(e as Error).message}`;
  }
  const sideSteps = preview.data?.steps.filter((s) => s.sideEffect) ?? [];
  const choiceOf = (s: (typeof sideSteps)[number]) =>
    choices[s.stepId] ?? (s.hasLastOutput ? "use_last" : undefined);
  const unconfirmed = sideSteps.filter((s) => !choiceOf(s)).map((s) => s.stepId);
  const title = mode === "step" ? `Test step ${stepId}` : `Test up to ${stepId}`;
  const run = () =>
    start.mutate({
      workflowId: test.workflowId,
      stepId,
      mode,
      definition,
      input,
      sideEffects: Object.fromEntries(
        sideSteps.flatMap((s) => {
          const c = choiceOf(s);
          return c ? [[s.stepId, c]] : [];
        }),
      ),
    });
  return (
    <Dialog
      open
      onClose={onClose}
      title={title}
      footer={
        <>
          <button type="button" className="btn" onClick={onClose}>
            Cancel
          </button>
          <button
            type="button"
            className="btn btn-primary"
            disabled={!preview.data || !!inputError || unconfirmed.length > 0 || start.isPending}
            onClick={run}
          >
            {start.isPending ? "Starting…" : "Run test"}
          </button>
        </>
      }
    >
      <p className="muted small">
        Runs the draft {mode === "step" ? "step" : "up to this step"} as a test: no quota, no
        events, hidden from the runs list.
        {mode === "step"
          ? " Earlier steps reuse their outputs from the last run where it has them."
          : ""}
      </p>
      {preview.error ? (
        <p className="callout callout-warn" role="alert">
          {preview.error.message}
        </p>
      ) : null}
      <label className={styles.field}>
        <span>
          Input (JSON)
          {preview.data?.lastRun ? <span className="muted small"> — from the last run</span> : null}
        </span>
        <textarea
          className={`mono ${styles.input}`}
          rows={6}
          spellCheck={false}
          value={text}
          onChange={(e) => setInputText(e.target.value)}
          aria-invalid={!!inputError}
        />
      </label>
      {inputError ? (
        <p className="small error-text" role="alert">
          {inputError}
        </p>
      ) : null}
      {sideSteps.length ? (
        <fieldset className={styles.sideEffects}>
          <legend>Steps with side effects</legend>
          {sideSteps.map((s) => (
            <label key={s.stepId} className={styles.choice}>
              <span>
                <code>{s.stepId}</code> <span className="muted small">({s.type})</span>
              </span>
              <select
                aria-label={`${s.stepId}: side effect`}
                value={choiceOf(s) ?? ""}
                onChange={(e) =>
                  setChoices((c) => ({
                    ...c,
                    [s.stepId]: (e.target.value || undefined) as SideEffectChoice | undefined,
                  }))
                }
              >
                {s.hasLastOutput ? (
                  <option value="use_last">Use last output</option>
                ) : (
                  <option value="">Choose… (no output from the last run)</option>
                )}
                <option value="execute">Run it for real</option>
              </select>
            </label>
          ))}
        </fieldset>
      ) : null}
      {unconfirmed.length ? (
        <p className="small muted" role="status">
          Confirm {unconfirmed.join(", ")} before running the test.
        </p>
      ) : null}
      {start.error ? (
        <p className="callout callout-warn" role="alert">
          {start.error.message}
        </p>
      ) : null}
    </Dialog>
  );
}
