"use client";
import { useMutation, useQuery, useQueryClient } from "@tanstack/react-query";
import { useRouter } from "next/navigation";
import { useState } from "react";
import { useRole } from "@/components/shell/role-context";
import { Field } from "@/components/ui/field";
import { ErrorState, LoadingRows } from "@/components/ui/states";
import { useToast } from "@/components/ui/toast";
import { UnsavedBadge, UnsavedChangesGuard } from "@/components/ui/unsaved-changes";
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
  const [name, setName] = useState(initialName);
  const rename = useMutation(
    trpc.workspace.rename.mutationOptions({
      onSuccess: () => {
        void qc.invalidateQueries({ queryKey: trpc.workspace.current.queryKey() });
        toast("Workspace renamed");
        router.refresh();
      },
    }),
  );
  return (
    <div className="card-body">
      <form
        className="form"
        style={{ maxWidth: 480 }}
        onSubmit={(e) => {
          e.preventDefault();
          rename.mutate({ name });
        }}
      >
        <Field
          label="Name"
          value={name}
          onChange={(e) => setName(e.target.value)}
          disabled={!canEdit}
          error={rename.error?.message}
        />
        <Field label="Workspace id" value={id} readOnly hint="Used by the API and the CLI." />
        {canEdit ? (
          <div className="row">
            <button
              className="btn btn-primary"
              type="submit"
              disabled={rename.isPending || name === initialName}
            >
              Save
            </button>
            <UnsavedBadge dirty={name !== initialName} />
          </div>
        ) : null}
        <UnsavedChangesGuard dirty={canEdit && name !== initialName} what="name" />
      </form>
    </div>
  );
}
