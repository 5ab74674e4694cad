"use client";
import { useMutation, useQuery } from "@tanstack/react-query";
import { useRouter } from "next/navigation";
import { useId, useState } from "react";
import { Dialog } from "@/components/ui/dialog";
import { Spinner } from "@/components/ui/states";
import { useTRPC } from "@/lib/trpc/client";

function newKey() {
  return `ui-rerun-${Date.now()}-${Math.random().toString(36).slice(2)}`;
}

/**
 * Rerun a run: whole or from a step, on its pinned version or the workflow's current one, with
 * the original input or an edited one. Shows which side-effecting steps will run again first.
 */
export function RerunDialog({
  open,
  onClose,
  runId,
  stepIds,
  initialStep,
  originalInput,
}: {
  open: boolean;
  onClose: () => void;
  runId: string;
  stepIds: string[];
  initialStep: string | null;
  originalInput: Record<string, unknown>;
}) {
  return (
    <Dialog open={open} onClose={onClose} title="Rerun">
      {open ? (
        <RerunForm
          runId={runId}
          stepIds={stepIds}
          initialStep={initialStep}
          originalInput={originalInput}
          onClose={onClose}
        />
      ) : null}
    </Dialog>
  );
}

function RerunForm({
  runId,
  stepIds,
  initialStep,
  originalInput,
  onClose,
}: {
  runId: string;
  stepIds: string[];
  initialStep: string | null;
  originalInput: Record<string, unknown>;
  onClose: () => void;
}) {
  const trpc = useTRPC();
  const router = useRouter();
  const ids = { from: useId(), step: useId(), version: useId(), edit: useId(), input: useId() };
  const [key] = useState(newKey);
  const [fromStep, setFromStep] = useState<string>(initialStep ?? "");
  const [version, setVersion] = useState<"pinned" | "current">("pinned");
  const [editInput, setEditInput] = useState(false);
  const [inputText, setInputText] = useState(() => JSON.stringify(originalInput, null, 2));
  let input: Record<string, unknown> | undefined;
  let inputError: string | null = null;
  if (editInput) {
    try {
      const v: unknown = JSON.parse(inputText);
      if (v && typeof v === "object" && !Array.isArray(v)) input = v as Record<string, unknown>;
      else inputError = "The input must be a JSON object of named values.";
    } catch (e) {
      inputError = `Not valid JSON: ${(e as Error).message}`;
    }
  }
  const request = {
    runId,
    version,
    ...(fromStep ? { fromStepId: fromStep } : {}),
  };
  const preview = useQuery(trpc.run.previewRerun.queryOptions(request));
  const rerun = useMutation(
    trpc.run.rerun.mutationOptions({
      onSuccess: (r) => {
        onClose();
        router.push(`/runs/${r.runId}`);
      },
    }),
  );
  const sideEffects = preview.data?.rerun.filter((s) => s.sideEffect) ?? [];
  return (
    <div className="stack">
      <fieldset className="stack" style={{ border: 0, padding: 0, margin: 0 }}>
        <legend className="small muted">What to run again</legend>
        <label className="row" style={{ gap: 6 }}>
          <input
            type="radio"
            name="rerun-scope"
            checked={!fromStep}
            onChange={() => setFromStep("")}
            style={{ width: "auto" }}
          />
          The whole run
        </label>
        <label className="row" style={{ gap: 6 }}>
          <input
            type="radio"
            name="rerun-scope"
            checked={Boolean(fromStep)}
            onChange={() => setFromStep(initialStep ?? stepIds[0] ?? "")}
            style={{ width: "auto" }}
          />
          From a step (earlier steps’ outputs are reused)
        </label>
      </fieldset>
      {fromStep ? (
        <div className="field">
          <label htmlFor={ids.step}>From step</label>
          <select id={ids.step} value={fromStep} onChange={(e) => setFromStep(e.target.value)}>
            {stepIds.map((s) => (
              <option key={s} value={s}>
                {s}
              </option>
            ))}
          </select>
        </div>
      ) : null}
      <div className="field">
        <label htmlFor={ids.version}>Version</label>
        <select
          id={ids.version}
          value={version}
          onChange={(e) => setVersion(e.target.value as "pinned" | "current")}
        >
          <option value="pinned">This run’s version (pinned)</option>
          <option value="current">The workflow’s current version</option>
        </select>
      </div>
      <label className="row" style={{ gap: 6 }}>
        <input
          id={ids.edit}
          type="checkbox"
          checked={editInput}
          onChange={(e) => setEditInput(e.target.checked)}
          style={{ width: "auto" }}
        />
        Edit the input
      </label>
      {editInput ? (
        <div className="field">
          <label htmlFor={ids.input}>Input (JSON)</label>
          <textarea
            id={ids.input}
            className="mono"
            rows={6}
            spellCheck={false}
            value={inputText}
            aria-invalid={inputError ? true : undefined}
            onChange={(e) => setInputText(e.target.value)}
          />
          {inputError ? <div className="error">{inputError}</div> : null}
        </div>
      ) : null}
      <section aria-label="Rerun preview" className="callout">
        {preview.isPending ? (
          <Spinner label="Checking what will run again" />
        ) : preview.error ? (
          <span role="alert">{preview.error.message}</span>
        ) : preview.data ? (
          <div className="stack" style={{ gap: 4 }}>
            <div>
              Runs v{preview.data.version}: {preview.data.rerun.length} step
              {preview.data.rerun.length === 1 ? "" : "s"} again
              {preview.data.reused.length ? `, reusing ${preview.data.reused.length}` : ""}.
            </div>
            {sideEffects.length ? (
              <div>
                <strong>These steps affect the outside world and will repeat:</strong>
                <ul data-testid="rerun-side-effects">
                  {sideEffects.map((s) => (
                    <li key={s.stepId}>
                      <span className="mono">{s.stepId}</span> ({s.type})
                    </li>
                  ))}
                </ul>
              </div>
            ) : (
              <div>No side-effecting steps repeat.</div>
            )}
          </div>
        ) : null}
      </section>
      {rerun.error ? (
        <div className="form-error" role="alert">
          {rerun.error.message}
        </div>
      ) : null}
      <div className="row" style={{ justifyContent: "flex-end" }}>
        <button type="button" className="btn" onClick={onClose}>
          Cancel
        </button>
        <button
          type="button"
          className="btn btn-primary"
          disabled={rerun.isPending || Boolean(inputError) || !preview.data}
          onClick={() =>
            rerun.mutate({ ...request, ...(input ? { input } : {}), idempotencyKey: key })
          }
        >
          {rerun.isPending ? <span className="spinner" aria-hidden /> : null}
          Start rerun
        </button>
      </div>
    </div>
  );
}
