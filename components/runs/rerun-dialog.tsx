"use client";
import { useMutation, useQuery } from "@tanstack/react-query";
import { useRouter } from "next/navigation";
import { useId, useState } from "react";
import { Dialog } from "@/components/ui/dialog";
import { Spinner } from "@/components/ui/states";
import { newId } from "@/lib/ids";
import { useTRPC } from "@/lib/trpc/client";
import type { InputSpec } from "@/lib/workflow/definition";
import { RunInputFields } from "./run-input-fields";
import { initialFormValues, parseFormValues, type FormValues } from "./run-input-form";
import { IdempotencyLine } from "./idempotency-line";

/** A fresh idempotency key per form opening (getRandomValues works outside secure contexts too). */
const newKey = () => newId("ui-rerun");

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
  suggestedStep = null,
  originalInput,
  inputs,
  isInline = false,
}: {
  open: boolean;
  onClose: () => void;
  runId: string;
  stepIds: string[];
  /** Opened from a step ("Rerun from here…"): starts as a rerun from it. */
  initialStep: string | null;
  /** What "From a step" preselects otherwise: the failed step (firstFailedStep). */
  suggestedStep?: string | null;
  originalInput: Record<string, unknown>;
  /** The run's snapshot inputs: the edited input is a form like the manual run's. */
  inputs: Record<string, InputSpec>;
  /** An inline run has no workflow, so it can only rerun its own definition. */
  isInline?: boolean;
}) {
  return (
    <Dialog open={open} onClose={onClose} title="Rerun">
      {open ? (
        <RerunForm
          runId={runId}
          stepIds={stepIds}
          initialStep={initialStep}
          suggestedStep={suggestedStep}
          originalInput={originalInput}
          inputs={inputs}
          isInline={isInline}
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
  suggestedStep,
  originalInput,
  inputs,
  isInline,
  onClose,
}: {
  runId: string;
  stepIds: string[];
  initialStep: string | null;
  suggestedStep: string | null;
  originalInput: Record<string, unknown>;
  inputs: Record<string, InputSpec>;
  isInline: boolean;
  onClose: () => void;
}) {
  const trpc = useTRPC();
  const router = useRouter();
  const ids = { step: useId(), version: useId() };
  const [key] = useState(newKey);
  const [fromStep, setFromStep] = useState<string>(initialStep ?? "");
  const [version, setVersion] = useState<"pinned" | "current">("pinned");
  const [editInput, setEditInput] = useState(false);
  const [values, setValues] = useState<FormValues>(() => initialFormValues(inputs, originalInput));
  const [errors, setErrors] = useState<Record<string, string>>({});
  const [formError, setFormError] = useState<string | null>(null);
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
            // The step it was opened from, else the failed one; with no failure, as before: the
            // step being viewed (passed as suggestedStep), else the first step.
            onChange={() => setFromStep(initialStep ?? suggestedStep ?? stepIds[0] ?? "")}
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
          {isInline ? null : <option value="current">The workflow’s current version</option>}
        </select>
      </div>
      <label className="row" style={{ gap: 6 }}>
        <input
          type="checkbox"
          checked={editInput}
          onChange={(e) => setEditInput(e.target.checked)}
          style={{ width: "auto" }}
        />
        Edit the input
      </label>
      {editInput ? (
        <fieldset className="stack" style={{ border: 0, padding: 0, margin: 0 }}>
          <legend className="small muted">Input for the rerun</legend>
          <RunInputFields
            inputs={inputs}
            values={values}
            errors={errors}
            onChange={(name, value) => setValues((v) => ({ ...v, [name]: value }))}
          />
          {formError ? (
            <div className="form-error" role="alert">
              {formError}
            </div>
          ) : null}
        </fieldset>
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
                      {s.idempotency ? <IdempotencyLine idem={s.idempotency} /> : null}
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
          disabled={rerun.isPending || !preview.data}
          onClick={() => {
            if (!editInput) return rerun.mutate({ ...request, idempotencyKey: key });
            const parsed = parseFormValues(inputs, values);
            if (!parsed.ok) {
              setErrors(parsed.errors);
              setFormError(parsed.formError);
              return;
            }
            setErrors({});
            setFormError(null);
            rerun.mutate({ ...request, input: parsed.value, idempotencyKey: key });
          }}
        >
          {rerun.isPending ? <span className="spinner" aria-hidden /> : null}
          Start rerun
        </button>
      </div>
    </div>
  );
}
