"use client";
import { useMutation, useQuery, useQueryClient } from "@tanstack/react-query";
import Link from "next/link";
import { useId, useState, type FormEvent } from "react";
import { RunInputFields } from "@/components/runs/run-input-fields";
import {
  initialFormValues,
  parseFormValues,
  type FormValues,
} from "@/components/runs/run-input-form";
import { ErrorState, LoadingRows } from "@/components/ui/states";
import { useToast } from "@/components/ui/toast";
import type { InputSpec } from "@/lib/workflow/definition";
import { TASK_OUTPUT_WORDS } from "@/lib/workflow/inputs";
import { useTRPC } from "@/lib/trpc/client";
import styles from "./queue.module.css";

/**
 * One task opened from My queue: the instructions (plain text, never HTML), the run, and the
 * output form generated from the step's outputSchema (the manual-run form's fields and rules),
 * with Complete, and Fail with a reason.
 */
export function TaskPanel({ taskId }: { taskId: string }) {
  const trpc = useTRPC();
  const q = useQuery(trpc.task.get.queryOptions({ taskId }));
  if (q.isPending) return <LoadingRows rows={3} label="Loading task" />;
  if (q.isError) return <ErrorState message={q.error.message} onRetry={() => void q.refetch()} />;
  return <TaskForm task={q.data} />;
}

type Task = {
  id: string;
  runId: string;
  stepId: string;
  instructions: string;
  outputSchema: Record<string, unknown> | null;
  canAct: boolean;
  whyNot: string | null;
};

function TaskForm({ task }: { task: Task }) {
  const trpc = useTRPC();
  const qc = useQueryClient();
  const toast = useToast();
  const ids = { reason: useId(), json: useId(), err: useId() };
  const schema = (task.outputSchema ?? null) as Record<string, InputSpec> | null;
  const [values, setValues] = useState<FormValues>(() => (schema ? initialFormValues(schema) : {}));
  const [json, setJson] = useState("{}");
  const [errors, setErrors] = useState<Record<string, string>>({});
  const [formError, setFormError] = useState<string | null>(null);
  const [reason, setReason] = useState("");
  const refresh = () =>
    Promise.all([
      qc.invalidateQueries({ queryKey: trpc.task.list.queryKey() }),
      qc.invalidateQueries({ queryKey: trpc.task.get.queryKey({ taskId: task.id }) }),
    ]);
  const onError = (e: { message: string; data?: unknown }) => {
    // Field problems from the server (ValidationError issues) go next to their field.
    const issues = (e.data as { issues?: { path?: (string | number)[]; message: string }[] } | null)
      ?.issues;
    const byField: Record<string, string> = {};
    for (const i of issues ?? [])
      if (i.path?.[0] === "output" && typeof i.path[1] === "string") byField[i.path[1]] = i.message;
    setErrors(byField);
    setFormError(e.message);
  };
  const complete = useMutation(
    trpc.task.complete.mutationOptions({
      onSuccess: async () => {
        toast("Task completed");
        await refresh();
      },
      onError,
    }),
  );
  const fail = useMutation(
    trpc.task.fail.mutationOptions({
      onSuccess: async () => {
        toast("Task failed");
        await refresh();
      },
      onError,
    }),
  );
  const busy = complete.isPending || fail.isPending;

  function onComplete(e: FormEvent) {
    e.preventDefault();
    setFormError(null);
    if (!schema) {
      let output: unknown;
      try {
        output = JSON.parse(json || "{}");
      } catch (err) {
        setFormError(`Output is not valid JSON: ${(err as Error).message}`);
        return;
      }
      if (typeof output !== "object" || output === null || Array.isArray(output)) {
        setFormError("Output must be a JSON object.");
        return;
      }
      complete.mutate({ taskId: task.id, output: output as Record<string, unknown> });
      return;
    }
    const parsed = parseFormValues(schema, values, TASK_OUTPUT_WORDS);
    if (!parsed.ok) {
      setErrors(parsed.errors);
      setFormError(parsed.formError ?? "Check the highlighted fields.");
      return;
    }
    setErrors({});
    complete.mutate({ taskId: task.id, output: parsed.value });
  }

  function onFail() {
    setFormError(null);
    if (!reason.trim()) {
      setFormError("Give a reason for failing the task.");
      return;
    }
    fail.mutate({ taskId: task.id, reason: reason.trim() });
  }

  return (
    <section className={`stack ${styles.detail}`} aria-label={`Task ${task.stepId}`}>
      <div>
        <div className="small muted">Instructions</div>
        <pre className={styles.instructions}>{task.instructions}</pre>
      </div>
      <div className="small">
        Run{" "}
        <Link href={`/runs/${task.runId}`} className="mono">
          {task.runId}
        </Link>{" "}
        · step <span className="mono">{task.stepId}</span>
      </div>
      {!task.canAct ? (
        <p className="muted" role="note">
          {task.whyNot}
        </p>
      ) : (
        <form className="stack" onSubmit={onComplete} aria-label="Task output" noValidate>
          {schema ? (
            Object.keys(schema).length > 0 ? (
              <RunInputFields
                inputs={schema}
                values={values}
                errors={errors}
                onChange={(name, v) => setValues((prev) => ({ ...prev, [name]: v }))}
              />
            ) : null
          ) : (
            <div className="field">
              <label htmlFor={ids.json}>Output (JSON object)</label>
              <textarea
                id={ids.json}
                className="mono"
                rows={5}
                spellCheck={false}
                value={json}
                onChange={(e) => setJson(e.target.value)}
              />
            </div>
          )}
          <div className="field">
            <label htmlFor={ids.reason}>Reason (to fail the task)</label>
            <textarea
              id={ids.reason}
              rows={2}
              value={reason}
              onChange={(e) => setReason(e.target.value)}
            />
          </div>
          {formError ? (
            <div className="form-error" role="alert" id={ids.err}>
              {formError}
            </div>
          ) : null}
          <div className="row">
            <button type="submit" className="btn btn-primary" disabled={busy}>
              Complete
            </button>
            <button type="button" className="btn btn-danger" disabled={busy} onClick={onFail}>
              Fail task
            </button>
          </div>
        </form>
      )}
    </section>
  );
}
