"use client";
import { useMutation, useQuery, useQueryClient } from "@tanstack/react-query";
import { useState } from "react";
import { z } from "zod";
import { FormIssues, FormText, useIssueForm } from "@/components/forms/form";
import { issuesOf } from "@/components/forms/issues";
import { useRole } from "@/components/shell/role-context";
import { CopyButton } from "@/components/ui/copy-button";
import { ConfirmDialog, Dialog } from "@/components/ui/dialog";
import { EmptyState, ErrorState, LoadingRows } from "@/components/ui/states";
import { RelativeTime } from "@/components/ui/time";
import { useToast } from "@/components/ui/toast";
import { CreateSecretInput, SecretValue } from "@/lib/schemas/secrets";
import { useTRPC } from "@/lib/trpc/client";

const USED_BY_LABEL: Record<string, string> = { llm: "LLM endpoint", smtp: "SMTP" };
const usedByLabel = (u: string) =>
  USED_BY_LABEL[u] ?? (u.startsWith("mcp:") ? `MCP ${u.slice(4)}` : u);

/**
 * Secret names and their history. Values are write-only: typed into a password field, sent once,
 * never shown again (the API has no way to return them).
 */
export function SecretsSettings() {
  const { can } = useRole();
  if (!can("editor")) {
    return (
      <div className="card">
        <EmptyState title="Editors and admins only">
          Secret names are visible to editors, who reference them in workflows as{" "}
          <code>{"{{ secrets.NAME }}"}</code>.
        </EmptyState>
      </div>
    );
  }
  return <SecretsList isAdmin={can("admin")} />;
}

function SecretsList({ isAdmin }: { isAdmin: boolean }) {
  const trpc = useTRPC();
  const qc = useQueryClient();
  const toast = useToast();
  const list = useQuery(trpc.secret.list.queryOptions());
  const invalidate = () => qc.invalidateQueries({ queryKey: trpc.secret.list.queryKey() });
  const [updating, setUpdating] = useState<string | null>(null);
  const [deleting, setDeleting] = useState<string | null>(null);
  const remove = useMutation(
    trpc.secret.delete.mutationOptions({
      onSuccess: () => {
        toast(`Secret ${deleting} deleted`);
        setDeleting(null);
        void invalidate();
      },
    }),
  );

  return (
    <div className="stack">
      {isAdmin ? <CreateSecretCard onCreated={invalidate} /> : null}
      <section className="card" aria-labelledby="secrets-h">
        <div className="card-head">
          <h2 id="secrets-h">Secrets</h2>
          {list.data ? <span className="badge">{list.data.length}</span> : null}
        </div>
        {!isAdmin ? (
          <div className="card-body" style={{ paddingBottom: 0 }}>
            <p className="section-note">Only workspace admins can add, change or delete secrets.</p>
          </div>
        ) : null}
        {list.isPending ? (
          <LoadingRows label="Loading secrets" />
        ) : list.error ? (
          <ErrorState message={list.error.message} onRetry={() => list.refetch()} />
        ) : list.data.length === 0 ? (
          <EmptyState title="No secrets yet">
            {isAdmin
              ? "Add API keys, tokens and passwords above; workflows use them as {{ secrets.NAME }}."
              : "An admin can add API keys, tokens and passwords here."}
          </EmptyState>
        ) : (
          <table className="table">
            <thead>
              <tr>
                <th>Name</th>
                <th>Used by</th>
                <th>Last updated</th>
                <th>Created</th>
                <th>
                  <span className="sr-only">Actions</span>
                </th>
              </tr>
            </thead>
            <tbody>
              {list.data.map((s) => (
                <tr key={s.name}>
                  <td>
                    <div className="row" style={{ gap: 6 }}>
                      <code>{s.name}</code>
                      <CopyButton value={`{{ secrets.${s.name} }}`} label="Copy template" />
                    </div>
                  </td>
                  <td>
                    {s.usedBy.length ? (
                      s.usedBy.map((u) => (
                        <span key={u} className="badge badge-info">
                          {usedByLabel(u)}
                        </span>
                      ))
                    ) : (
                      <span className="faint">—</span>
                    )}
                  </td>
                  <td>
                    <RelativeTime date={s.updatedAt} />
                    {s.updatedByName ? (
                      <span className="faint small"> by {s.updatedByName}</span>
                    ) : null}
                  </td>
                  <td>
                    <RelativeTime date={s.createdAt} />
                    {s.createdByName ? (
                      <span className="faint small"> by {s.createdByName}</span>
                    ) : null}
                  </td>
                  <td style={{ textAlign: "right", whiteSpace: "nowrap" }}>
                    {isAdmin ? (
                      <div className="row" style={{ justifyContent: "flex-end" }}>
                        <button
                          type="button"
                          className="btn btn-sm"
                          onClick={() => setUpdating(s.name)}
                          aria-label={`Update the value of ${s.name}`}
                        >
                          Update value
                        </button>
                        <button
                          type="button"
                          className="btn btn-sm btn-danger"
                          onClick={() => setDeleting(s.name)}
                          aria-label={`Delete ${s.name}`}
                        >
                          Delete
                        </button>
                      </div>
                    ) : null}
                  </td>
                </tr>
              ))}
            </tbody>
          </table>
        )}
      </section>
      {updating ? (
        <UpdateValueDialog
          name={updating}
          onClose={() => setUpdating(null)}
          onDone={() => {
            toast(`Secret ${updating} updated`);
            setUpdating(null);
            void invalidate();
          }}
        />
      ) : null}
      <ConfirmDialog
        open={deleting !== null}
        title={`Delete secret ${deleting}?`}
        body={
          <>
            Runs that reference <code>{`{{ secrets.${deleting} }}`}</code> will fail until a secret
            with this name exists again. The value cannot be recovered.
          </>
        }
        confirmLabel="Delete secret"
        danger
        pending={remove.isPending}
        error={remove.error?.message}
        onClose={() => {
          setDeleting(null);
          remove.reset();
        }}
        onConfirm={() => deleting && remove.mutate({ name: deleting })}
      />
    </div>
  );
}

const SECRET_FIELDS = { fields: ["name", "value"] };
const UpdateValueForm = z.object({ value: SecretValue });

function CreateSecretCard({ onCreated }: { onCreated: () => void }) {
  const trpc = useTRPC();
  const toast = useToast();
  const form = useIssueForm(CreateSecretInput, {
    defaultValues: { name: "", value: "" },
    issues: SECRET_FIELDS,
  });
  const create = useMutation(
    trpc.secret.create.mutationOptions({
      onSuccess: (s) => {
        toast(`Secret ${s.name} saved`);
        form.reset();
        onCreated();
      },
      onError: (e) => form.applyIssues(issuesOf(e)),
    }),
  );
  const { errors } = form.formState;
  return (
    <section className="card" aria-labelledby="new-secret-h">
      <div className="card-head">
        <h2 id="new-secret-h">Add a secret</h2>
      </div>
      <div className="card-body stack">
        <p className="section-note">
          Values are encrypted (AES-256-GCM), never shown again after saving, and redacted from run
          outputs, errors and logs — also when base64-, hex- or URL-encoded.
        </p>
        <form
          className="row"
          style={{ alignItems: "flex-start" }}
          noValidate
          onSubmit={form.handleSubmit((input) => create.mutate(input))}
        >
          <div style={{ width: 260 }}>
            <FormText
              control={form.control}
              name="name"
              label="Name"
              normalize={(v) => v.toUpperCase()}
              placeholder="API_TOKEN"
              autoComplete="off"
              spellCheck={false}
              hint="A-Z, 0-9 and _, starting with a letter."
            />
          </div>
          <div className="grow" style={{ minWidth: 240 }}>
            <FormText
              control={form.control}
              name="value"
              label="Value"
              type="password"
              autoComplete="new-password"
              spellCheck={false}
              hint="At least 4 characters, up to 64 KiB."
            />
          </div>
          <button
            className="btn btn-primary"
            type="submit"
            disabled={create.isPending}
            style={{ marginTop: 23 }}
          >
            {create.isPending ? <span className="spinner" aria-hidden /> : null}
            Save secret
          </button>
        </form>
        <FormIssues
          errors={errors}
          fallback={create.error && !errors.name && !errors.value ? create.error.message : null}
        />
      </div>
    </section>
  );
}

function UpdateValueDialog({
  name,
  onClose,
  onDone,
}: {
  name: string;
  onClose: () => void;
  onDone: () => void;
}) {
  const trpc = useTRPC();
  const form = useIssueForm(UpdateValueForm, {
    defaultValues: { value: "" },
    issues: { fields: ["value"] },
  });
  const update = useMutation(
    trpc.secret.update.mutationOptions({
      onSuccess: onDone,
      onError: (e) => form.applyIssues(issuesOf(e)),
    }),
  );
  const { errors } = form.formState;
  return (
    <Dialog
      open
      onClose={onClose}
      title={`New value for ${name}`}
      footer={
        <>
          <button type="button" className="btn" onClick={onClose} disabled={update.isPending}>
            Cancel
          </button>
          <button
            type="submit"
            form="update-secret-form"
            className="btn btn-primary"
            disabled={update.isPending}
          >
            {update.isPending ? <span className="spinner" aria-hidden /> : null}
            Save new value
          </button>
        </>
      }
    >
      <form
        id="update-secret-form"
        className="form"
        noValidate
        onSubmit={form.handleSubmit(({ value }) => update.mutate({ name, value }))}
      >
        <p className="section-note">
          The current value is never shown. Runs that already started keep the value they resolved.
        </p>
        <FormText
          control={form.control}
          name="value"
          label="New value"
          type="password"
          autoComplete="new-password"
          autoFocus
        />
        <FormIssues
          errors={errors}
          fallback={update.error && !errors.value ? update.error.message : null}
        />
      </form>
    </Dialog>
  );
}
