"use client";
import { useMutation, useQuery, useQueryClient } from "@tanstack/react-query";
import { useState } from "react";
import { useRole } from "@/components/shell/role-context";
import { CopyButton } from "@/components/ui/copy-button";
import { ConfirmDialog, Dialog } from "@/components/ui/dialog";
import { Field } from "@/components/ui/field";
import { EmptyState, ErrorState, LoadingRows } from "@/components/ui/states";
import { RelativeTime } from "@/components/ui/time";
import { CreateApiTokenInput } from "@/lib/schemas/api-tokens";
import type { Role } from "@/lib/schemas/roles";
import { useTRPC } from "@/lib/trpc/client";
import { RoleSelect } from "./role-select";
import secretBox from "@/components/ui/secret-box.module.css";

/** Any member creates personal tokens (capped at their role); admins see and revoke everyone's. */
export function ApiTokensSettings() {
  const trpc = useTRPC();
  const qc = useQueryClient();
  const { role: myRole, can } = useRole();
  const list = useQuery(trpc.apiToken.list.queryOptions());
  const invalidate = () => qc.invalidateQueries({ queryKey: trpc.apiToken.list.queryKey() });
  const create = useMutation(trpc.apiToken.create.mutationOptions({ onSuccess: invalidate }));
  const revoke = useMutation(
    trpc.apiToken.revoke.mutationOptions({
      onSuccess: () => {
        setRevoking(null);
        void invalidate();
      },
    }),
  );
  const [name, setName] = useState("");
  const [role, setRole] = useState<Role>(can("editor") ? "editor" : myRole);
  const [expires, setExpires] = useState("");
  const [fieldError, setFieldError] = useState("");
  const [revoking, setRevoking] = useState<{ id: string; name: string } | null>(null);
  const [shown, setShown] = useState<{ token: string; name: string } | null>(null);

  return (
    <div className="stack">
      <section className="card" aria-labelledby="new-token-h">
        <div className="card-head">
          <h2 id="new-token-h">Create an API token</h2>
        </div>
        <div className="card-body stack">
          <p className="muted small" style={{ margin: 0 }}>
            Tokens let agents, scripts and the CLI call the HTTP API (
            <code>Authorization: Bearer slu_…</code>). A token acts with its role, never above
            yours, and stops working if you leave the workspace.
          </p>
          <form
            className="row"
            style={{ alignItems: "flex-end" }}
            noValidate
            onSubmit={(e) => {
              e.preventDefault();
              const parsed = CreateApiTokenInput.safeParse({
                name,
                role,
                expiresInDays: expires ? Number(expires) : undefined,
              });
              if (!parsed.success)
                return setFieldError(parsed.error.issues[0]?.message ?? "Invalid");
              setFieldError("");
              create.mutate(parsed.data, {
                onSuccess: (t) => {
                  setShown({ token: t.token, name: t.name });
                  setName("");
                },
              });
            }}
          >
            <div className="grow">
              <Field
                label="Name"
                value={name}
                onChange={(e) => setName(e.target.value)}
                placeholder="deploy-bot"
                error={fieldError}
              />
            </div>
            <div style={{ width: 160 }}>
              <Field
                label="Role"
                render={(p) => <RoleSelect {...p} value={role} onChange={setRole} max={myRole} />}
              />
            </div>
            <div style={{ width: 150 }}>
              <Field
                label="Expires in (days)"
                type="number"
                min={1}
                max={3650}
                value={expires}
                onChange={(e) => setExpires(e.target.value)}
                placeholder="never"
              />
            </div>
            <button className="btn btn-primary" type="submit" disabled={create.isPending}>
              Create token
            </button>
          </form>
          {create.error ? (
            <div className="form-error" role="alert">
              {create.error.message}
            </div>
          ) : null}
        </div>
      </section>

      <section className="card" aria-labelledby="tokens-h">
        <div className="card-head">
          <h2 id="tokens-h">{can("admin") ? "Tokens" : "Your tokens"}</h2>
        </div>
        {list.isPending ? (
          <LoadingRows label="Loading API tokens" />
        ) : list.error ? (
          <ErrorState message={list.error.message} onRetry={() => list.refetch()} />
        ) : list.data.length === 0 ? (
          <EmptyState title="No API tokens">
            Create one above to use the HTTP API or the CLI.
          </EmptyState>
        ) : (
          <table className="table">
            <thead>
              <tr>
                <th>Name</th>
                <th>Token</th>
                <th>Role</th>
                <th>Status</th>
                <th>Last used</th>
                <th>Created</th>
                <th>
                  <span className="sr-only">Actions</span>
                </th>
              </tr>
            </thead>
            <tbody>
              {list.data.map((t) => (
                <tr key={t.id}>
                  <td>{t.name}</td>
                  <td className="mono">{t.prefix}…</td>
                  <td>
                    <span className="badge">{t.role}</span>
                  </td>
                  <td>
                    <span
                      className={t.status === "active" ? "badge badge-ok" : "badge badge-danger"}
                    >
                      {t.status}
                    </span>
                  </td>
                  <td>
                    <RelativeTime date={t.lastUsedAt} />
                  </td>
                  <td>
                    <RelativeTime date={t.createdAt} />{" "}
                    <span className="faint small">by {t.createdByName}</span>
                  </td>
                  <td style={{ textAlign: "right" }}>
                    {t.status === "active" ? (
                      <button
                        type="button"
                        className="btn btn-sm btn-danger"
                        onClick={() => setRevoking({ id: t.id, name: t.name })}
                      >
                        Revoke
                      </button>
                    ) : null}
                  </td>
                </tr>
              ))}
            </tbody>
          </table>
        )}
      </section>

      <Dialog
        open={shown !== null}
        onClose={() => setShown(null)}
        title={`Token “${shown?.name}” created`}
        size="lg"
        footer={
          <button type="button" className="btn btn-primary" onClick={() => setShown(null)}>
            Done
          </button>
        }
      >
        <div className="stack">
          <div className="callout callout-warn">
            Copy it now: it is shown only once and cannot be recovered.
          </div>
          <div className={secretBox.box}>
            <code data-testid="new-token">{shown?.token}</code>
            {shown ? <CopyButton value={shown.token} /> : null}
          </div>
        </div>
      </Dialog>
      <ConfirmDialog
        open={revoking !== null}
        title={`Revoke “${revoking?.name}”?`}
        body="Requests with this token are refused immediately. This cannot be undone."
        confirmLabel="Revoke token"
        danger
        pending={revoke.isPending}
        error={revoke.error?.message}
        onClose={() => {
          setRevoking(null);
          revoke.reset();
        }}
        onConfirm={() => revoking && revoke.mutate({ tokenId: revoking.id })}
      />
    </div>
  );
}
