"use client";
import { useMutation, useQuery, useQueryClient } from "@tanstack/react-query";
import { useState } from "react";
import { FormIssues, FormText, useIssueForm } from "@/components/forms/form";
import { issuesOf } from "@/components/forms/issues";
import { useRole } from "@/components/shell/role-context";
import { CopyButton } from "@/components/ui/copy-button";
import { ConfirmDialog } from "@/components/ui/dialog";
import { Field } from "@/components/ui/field";
import { EmptyState, ErrorState, LoadingRows } from "@/components/ui/states";
import { RelativeTime } from "@/components/ui/time";
import { useToast } from "@/components/ui/toast";
import { InviteMemberInput } from "@/lib/schemas/workspace";
import { ROLE_LABELS, type Role } from "@/lib/schemas/roles";
import { useTRPC } from "@/lib/trpc/client";
import { RoleSelect } from "./role-select";
import secretBox from "@/components/ui/secret-box.module.css";

interface RoleChange {
  userId: string;
  name: string;
  from: Role;
  to: Role;
}

export function MembersSettings() {
  const trpc = useTRPC();
  const qc = useQueryClient();
  const toast = useToast();
  const { role: myRole, can } = useRole();
  const me = useQuery(trpc.me.get.queryOptions());
  const members = useQuery(trpc.member.list.queryOptions());
  const [removing, setRemoving] = useState<{ userId: string; name: string } | null>(null);
  const [changing, setChanging] = useState<RoleChange | null>(null);
  const invalidate = () => qc.invalidateQueries({ queryKey: trpc.member.list.queryKey() });
  const changeRole = useMutation(trpc.member.changeRole.mutationOptions());
  // A role change acts at once, so it asks first and its toast offers Undo: the same audited
  // verb, back to the previous role (so the audit log shows both changes).
  const applyRole = (c: RoleChange, undoing = false) =>
    changeRole.mutate(
      { userId: c.userId, role: c.to },
      {
        onSuccess: () => {
          setChanging(null);
          void invalidate();
          if (undoing) return toast(`${c.name} is ${c.to} again`);
          toast(`${c.name} is now ${c.to} (was ${c.from})`, "info", {
            label: "Undo",
            onClick: () => applyRole({ ...c, from: c.to, to: c.from }, true),
          });
        },
        onError: (e) => {
          if (undoing) toast(`Could not restore ${c.name}'s role: ${e.message}`, "error");
        },
      },
    );
  const remove = useMutation(
    trpc.member.remove.mutationOptions({
      onSuccess: () => {
        setRemoving(null);
        void invalidate();
        toast("Member removed");
      },
    }),
  );
  const isAdmin = can("admin");

  return (
    <div className="stack">
      {isAdmin ? <InviteCard /> : null}
      <section className="card" aria-labelledby="members-h">
        <div className="card-head">
          <h2 id="members-h">Members</h2>
          {members.data ? <span className="badge">{members.data.length}</span> : null}
        </div>
        {members.isPending ? (
          <LoadingRows label="Loading members" />
        ) : members.error ? (
          <ErrorState message={members.error.message} onRetry={() => members.refetch()} />
        ) : members.data.length === 0 ? (
          <EmptyState title="No members" />
        ) : (
          <table className="table">
            <thead>
              <tr>
                <th>Name</th>
                <th>Email</th>
                <th>Role</th>
                <th>Joined</th>
                <th>
                  <span className="sr-only">Actions</span>
                </th>
              </tr>
            </thead>
            <tbody>
              {members.data.map((m) => {
                const isMe = m.userId === me.data?.user.id;
                return (
                  <tr key={m.userId}>
                    <td>
                      {m.name} {isMe ? <span className="badge">you</span> : null}
                    </td>
                    <td className="muted">{m.email}</td>
                    <td style={{ width: 160 }}>
                      {isAdmin && !isMe ? (
                        <RoleSelect
                          label={`Role of ${m.name}`}
                          value={m.role}
                          max={myRole}
                          disabled={changeRole.isPending}
                          onChange={(role: Role) =>
                            setChanging({ userId: m.userId, name: m.name, from: m.role, to: role })
                          }
                        />
                      ) : (
                        <span className="badge badge-accent">{m.role}</span>
                      )}
                    </td>
                    <td>
                      <RelativeTime date={m.joinedAt} />
                    </td>
                    <td style={{ textAlign: "right" }}>
                      {isAdmin || isMe ? (
                        <button
                          type="button"
                          className="btn btn-sm btn-danger"
                          onClick={() => setRemoving({ userId: m.userId, name: m.name })}
                        >
                          {isMe ? "Leave" : "Remove"}
                        </button>
                      ) : null}
                    </td>
                  </tr>
                );
              })}
            </tbody>
          </table>
        )}
      </section>
      {isAdmin ? <InvitationsCard /> : null}
      <ConfirmDialog
        open={changing !== null}
        title={`Change ${changing?.name}'s role to ${changing?.to}?`}
        body={
          changing ? (
            <>
              {changing.name} goes from <strong>{changing.from}</strong> to{" "}
              <strong>{changing.to}</strong> at once. {ROLE_LABELS[changing.to]}.
            </>
          ) : null
        }
        confirmLabel="Change role"
        pending={changeRole.isPending}
        error={changeRole.error?.message}
        onClose={() => {
          setChanging(null);
          changeRole.reset();
        }}
        onConfirm={() => changing && applyRole(changing)}
      />
      <ConfirmDialog
        open={removing !== null}
        title={
          removing?.userId === me.data?.user.id
            ? "Leave this workspace?"
            : `Remove ${removing?.name}?`
        }
        body="They lose access at once, and their API tokens in this workspace are revoked."
        confirmLabel={removing?.userId === me.data?.user.id ? "Leave" : "Remove member"}
        danger
        pending={remove.isPending}
        error={remove.error?.message}
        onClose={() => {
          setRemoving(null);
          remove.reset();
        }}
        onConfirm={() => removing && remove.mutate({ userId: removing.userId })}
      />
    </div>
  );
}

function InviteCard() {
  const trpc = useTRPC();
  const qc = useQueryClient();
  const { role: myRole } = useRole();
  const form = useIssueForm(InviteMemberInput, {
    defaultValues: { email: "", role: "editor" },
    issues: { fields: ["email", "role"] },
  });
  const invite = useMutation(
    trpc.invitation.create.mutationOptions({
      onSuccess: () => qc.invalidateQueries({ queryKey: trpc.invitation.list.queryKey() }),
      onError: (e) => form.applyIssues(issuesOf(e)),
    }),
  );
  const { errors } = form.formState;
  return (
    <section className="card" aria-labelledby="invite-h">
      <div className="card-head">
        <h2 id="invite-h">Invite a member</h2>
      </div>
      <div className="card-body stack">
        <form
          className="row"
          style={{ alignItems: "flex-end" }}
          noValidate
          onSubmit={form.handleSubmit((input) =>
            invite.mutate(input, { onSuccess: () => form.resetField("email") }),
          )}
        >
          <div className="grow">
            <FormText
              control={form.control}
              name="email"
              label="Email"
              type="email"
              autoComplete="off"
              placeholder="teammate@example.com"
            />
          </div>
          <div style={{ width: 170 }}>
            <Field
              label="Role"
              error={errors.role?.message}
              render={(p) => (
                <RoleSelect
                  {...p}
                  value={form.watch("role")}
                  onChange={(r) => form.setValue("role", r)}
                  max={myRole}
                />
              )}
            />
          </div>
          <button className="btn btn-primary" type="submit" disabled={invite.isPending}>
            Create invitation
          </button>
        </form>
        <FormIssues
          errors={errors}
          fallback={invite.error && !errors.email && !errors.role ? invite.error.message : null}
        />
        {invite.data ? (
          <div className="callout callout-ok stack" role="status">
            <div>
              Invitation for <strong>{invite.data.email}</strong> as{" "}
              <strong>{invite.data.role}</strong>. Send them this link (valid 7 days, single use):
            </div>
            <div className={secretBox.box}>
              <code data-testid="invitation-link">{invite.data.link}</code>
              <CopyButton value={invite.data.link} label="Copy link" />
            </div>
          </div>
        ) : null}
      </div>
    </section>
  );
}

function InvitationsCard() {
  const trpc = useTRPC();
  const qc = useQueryClient();
  const list = useQuery(trpc.invitation.list.queryOptions());
  const revoke = useMutation(
    trpc.invitation.revoke.mutationOptions({
      onSuccess: () => qc.invalidateQueries({ queryKey: trpc.invitation.list.queryKey() }),
    }),
  );
  return (
    <section className="card" aria-labelledby="inv-h">
      <div className="card-head">
        <h2 id="inv-h">Open invitations</h2>
      </div>
      {list.isPending ? (
        <LoadingRows rows={2} label="Loading invitations" />
      ) : list.error ? (
        <ErrorState message={list.error.message} onRetry={() => list.refetch()} />
      ) : list.data.length === 0 ? (
        <EmptyState title="No open invitations">
          Invite someone by email above; the link stays open here until they accept it.
        </EmptyState>
      ) : (
        <table className="table">
          <thead>
            <tr>
              <th>Email</th>
              <th>Role</th>
              <th>Invited by</th>
              <th>Expires</th>
              <th>
                <span className="sr-only">Actions</span>
              </th>
            </tr>
          </thead>
          <tbody>
            {list.data.map((i) => (
              <tr key={i.id}>
                <td>{i.email}</td>
                <td>
                  <span className="badge">{i.role}</span>
                </td>
                <td className="muted">{i.invitedByName}</td>
                <td>
                  <RelativeTime date={i.expiresAt} />
                </td>
                <td style={{ textAlign: "right" }}>
                  <button
                    type="button"
                    className="btn btn-sm btn-danger"
                    disabled={revoke.isPending}
                    onClick={() => revoke.mutate({ invitationId: i.id })}
                  >
                    Revoke
                  </button>
                </td>
              </tr>
            ))}
          </tbody>
        </table>
      )}
    </section>
  );
}
