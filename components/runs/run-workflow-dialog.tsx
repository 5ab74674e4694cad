"use client";
import { useMutation, useQuery } from "@tanstack/react-query";
import { useRouter } from "next/navigation";
import { useRef, useState, type FormEvent } from "react";
import { Dialog } from "@/components/ui/dialog";
import { ErrorState, LoadingRows } from "@/components/ui/states";
import { newId } from "@/lib/ids";
import { useTRPC } from "@/lib/trpc/client";
import { Field } from "@/components/ui/field";
import type { InputSpec } from "@/lib/workflow/definition";
import { repositoryRefProblem, type RepositorySpec } from "@/lib/workflow/repository";
import { RunInputFields } from "./run-input-fields";
import { initialFormValues, parseFormValues, type FormValues } from "./run-input-form";

/** A fresh idempotency key per form opening (getRandomValues works outside secure contexts too). */
const newKey = () => newId("ui");

/** The "Run" button of a workflow page: opens the manual run form (editor+). */
export function RunWorkflowButton({
  workflowId,
  versionId,
  version,
}: {
  workflowId: string;
  versionId: string | null;
  version: string | null;
}) {
  const [open, setOpen] = useState(false);
  // A fresh idempotency key per opening: double submits within one opening start one run.
  const [key, setKey] = useState(newKey);
  return (
    <>
      <button
        type="button"
        className="btn btn-primary"
        disabled={!versionId}
        title={versionId ? undefined : "Publish a version first"}
        onClick={() => {
          setKey(newKey());
          setOpen(true);
        }}
      >
        Run…
      </button>
      {open && versionId ? (
        <RunWorkflowDialog
          workflowId={workflowId}
          versionId={versionId}
          version={version}
          idempotencyKey={key}
          onClose={() => setOpen(false)}
        />
      ) : null}
    </>
  );
}

function RunWorkflowDialog({
  workflowId,
  versionId,
  version,
  idempotencyKey,
  onClose,
}: {
  workflowId: string;
  versionId: string;
  version: string | null;
  idempotencyKey: string;
  onClose: () => void;
}) {
  const trpc = useTRPC();
  const v = useQuery(trpc.workflow.version.queryOptions({ workflowId, versionId }));
  const definition = v.data?.definition as
    { inputs?: Record<string, InputSpec>; repository?: RepositorySpec } | undefined;
  const inputs = (definition?.inputs ?? {}) as Record<string, InputSpec>;
  return (
    <Dialog open onClose={onClose} title={`Run v${version ?? "?"}`}>
      {v.isPending ? (
        <LoadingRows rows={3} label="Loading inputs" />
      ) : v.error ? (
        <ErrorState message={v.error.message} onRetry={() => void v.refetch()} />
      ) : (
        <RunForm
          key={versionId}
          workflowId={workflowId}
          versionId={versionId}
          inputs={inputs}
          repository={definition?.repository}
          idempotencyKey={idempotencyKey}
          onClose={onClose}
        />
      )}
    </Dialog>
  );
}

function RunForm({
  workflowId,
  versionId,
  inputs,
  repository,
  idempotencyKey,
  onClose,
}: {
  workflowId: string;
  versionId: string;
  inputs: Record<string, InputSpec>;
  /** The definition's repository: a manual run may pick another ref (SPEC §3). */
  repository?: RepositorySpec;
  idempotencyKey: string;
  onClose: () => void;
}) {
  const trpc = useTRPC();
  const router = useRouter();
  const [values, setValues] = useState<FormValues>(() => initialFormValues(inputs));
  const [errors, setErrors] = useState<Record<string, string>>({});
  const [formError, setFormError] = useState<string | null>(null);
  const [ref, setRef] = useState(repository?.ref ?? "");
  const formRef = useRef<HTMLFormElement>(null);
  const start = useMutation(
    trpc.run.start.mutationOptions({
      onSuccess: (run) => {
        onClose();
        router.push(`/runs/${run.runId}`);
      },
    }),
  );
  function submit(e: FormEvent) {
    e.preventDefault();
    const parsed = parseFormValues(inputs, values);
    const refError = repository ? repositoryRefProblem(ref.trim()) : null;
    if (!parsed.ok || refError) {
      setErrors({ ...(parsed.ok ? {} : parsed.errors), ...(refError ? { $ref: refError } : {}) });
      setFormError(parsed.ok ? null : parsed.formError);
      // Take keyboard users to the first problem.
      requestAnimationFrame(() =>
        formRef.current?.querySelector<HTMLElement>('[aria-invalid="true"]')?.focus(),
      );
      return;
    }
    setErrors({});
    setFormError(null);
    const override =
      repository && ref.trim() !== repository.ref ? { repository: { ref: ref.trim() } } : {};
    start.mutate({ workflowId, versionId, input: parsed.value, idempotencyKey, ...override });
  }
  return (
    <form ref={formRef} className="stack" onSubmit={submit} noValidate aria-label="Run input">
      <RunInputFields
        inputs={inputs}
        values={values}
        errors={errors}
        onChange={(name, value) => setValues((v) => ({ ...v, [name]: value }))}
      />
      {repository ? (
        <Field
          label="Repository ref"
          hint={`Branch, tag or commit of ${repository.url}; pinned to a commit when the run starts.`}
          error={errors.$ref}
          render={(p) => (
            <input
              {...p}
              name="repositoryRef"
              className="mono"
              value={ref}
              onChange={(e) => setRef(e.target.value)}
            />
          )}
        />
      ) : null}
      {formError || start.error ? (
        <div className="form-error" role="alert">
          {formError ?? start.error?.message}
        </div>
      ) : null}
      <div className="row" style={{ justifyContent: "flex-end" }}>
        <button type="button" className="btn" onClick={onClose}>
          Cancel
        </button>
        <button type="submit" className="btn btn-primary" disabled={start.isPending}>
          {start.isPending ? <span className="spinner" aria-hidden /> : null}
          Start run
        </button>
      </div>
    </form>
  );
}
