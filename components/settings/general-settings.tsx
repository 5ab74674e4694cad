"use client";
import { useMutation, useQuery, useQueryClient } from "@tanstack/react-query";
import { useRouter } from "next/navigation";
import { FormIssues, FormText, useIssueForm } from "@/components/forms/form";
import { issuesOf } from "@/components/forms/issues";
import { useRole } from "@/components/shell/role-context";
import { Field } from "@/components/ui/field";
import { ErrorState, LoadingRows } from "@/components/ui/states";
import { useToast } from "@/components/ui/toast";
import { UnsavedBadge, UnsavedChangesGuard } from "@/components/ui/unsaved-changes";
import { RenameWorkspaceInput } from "@/lib/schemas/workspace";
import { useTRPC } from "@/lib/trpc/client";

export function GeneralSettings() {
  const trpc = useTRPC();
  const { can } = useRole();
  const ws = useQuery(trpc.workspace.current.queryOptions());
  return (
    <section className="card" aria-labelledby="general-h">
      <div className="card-head">
        <h2 id="general-h">Workspace</h2>
      </div>
      {ws.isPending ? (
        <LoadingRows rows={2} />
      ) : ws.error ? (
        <ErrorState message={ws.error.message} onRetry={() => ws.refetch()} />
      ) : (
        <RenameForm
          key={ws.data.name}
          id={ws.data.id}
          initialName={ws.data.name}
          canEdit={can("admin")}
        />
      )}
    </section>
  );
}

function RenameForm({
  id,
  initialName,
  canEdit,
}: {
  id: string;
  initialName: string;
  canEdit: boolean;
}) {
  const trpc = useTRPC();
  const qc = useQueryClient();
  const router = useRouter();
  const toast = useToast();
  const form = useIssueForm(RenameWorkspaceInput, {
    defaultValues: { name: initialName },
    issues: { fields: ["name"] },
  });
  const dirty = form.watch("name") !== initialName;
  const rename = useMutation(
    trpc.workspace.rename.mutationOptions({
      onSuccess: () => {
        void qc.invalidateQueries({ queryKey: trpc.workspace.current.queryKey() });
        toast("Workspace renamed");
        router.refresh();
      },
      onError: (e) => {
        const issues = issuesOf(e);
        if (issues.length) form.applyIssues(issues);
        else form.setError("root", { message: e.message });
      },
    }),
  );
  return (
    <div className="card-body">
      <form
        className="form"
        style={{ maxWidth: 480 }}
        noValidate
        onSubmit={form.handleSubmit((input) => rename.mutate({ name: input.name }))}
      >
        <FormText control={form.control} name="name" label="Name" disabled={!canEdit} />
        <Field label="Workspace id" value={id} readOnly hint="Used by the API and the CLI." />
        <FormIssues errors={form.formState.errors} />
        {canEdit ? (
          <div className="row">
            <button className="btn btn-primary" type="submit" disabled={rename.isPending || !dirty}>
              Save
            </button>
            <UnsavedBadge dirty={dirty} />
          </div>
        ) : null}
        <UnsavedChangesGuard dirty={canEdit && dirty} what="name" />
      </form>
    </div>
  );
}
