"use client";
import { useMutation, useQuery, useQueryClient } from "@tanstack/react-query";
import { signOut } from "next-auth/react";
import { useState } from "react";
import { ConfirmDialog } from "@/components/ui/dialog";
import { EmptyState, ErrorState, LoadingRows } from "@/components/ui/states";
import { RelativeTime } from "@/components/ui/time";
import { useToast } from "@/components/ui/toast";
import { useTRPC } from "@/lib/trpc/client";
import styles from "./sessions.module.css";

type Pending = { kind: "one"; id: string; label: string } | { kind: "others" } | { kind: "all" };

/** Where the user is signed in, with a way to end any of those sessions. */
export function SessionsCard() {
  const trpc = useTRPC();
  const qc = useQueryClient();
  const toast = useToast();
  const list = useQuery(trpc.session.list.queryOptions());
  const invalidate = () => qc.invalidateQueries({ queryKey: trpc.session.list.queryKey() });
  const [pending, setPending] = useState<Pending | null>(null);
  const revoke = useMutation(trpc.session.revoke.mutationOptions());
  const revokeAll = useMutation(trpc.session.revokeAll.mutationOptions());
  const others = (list.data ?? []).filter((s) => !s.isCurrent).length;

  async function confirm() {
    if (!pending) return;
    try {
      if (pending.kind === "one") {
        await revoke.mutateAsync({ sessionId: pending.id });
        toast("Session signed out");
      } else if (pending.kind === "others") {
        const r = await revokeAll.mutateAsync({ exceptCurrent: true });
        toast(`${r.revoked} other session${r.revoked === 1 ? "" : "s"} signed out`);
      } else {
        await revokeAll.mutateAsync({ exceptCurrent: false });
        // This browser's session ended too: leave through next-auth so its cookie goes with it.
        await signOut({ callbackUrl: "/sign-in" });
        return;
      }
      setPending(null);
      await invalidate();
    } catch {
      // The dialog shows the mutation's error and stays open.
    }
  }

  const error = (pending?.kind === "one" ? revoke.error : revokeAll.error)?.message;

  return (
    <section className="card" aria-labelledby="sessions-h">
      <div className="card-head">
        <h2 id="sessions-h">Sessions</h2>
        <div className={styles.actions}>
          <button
            type="button"
            className="btn btn-sm"
            disabled={others === 0}
            onClick={() => setPending({ kind: "others" })}
          >
            Sign out everywhere else
          </button>
          <button
            type="button"
            className="btn btn-sm btn-danger"
            onClick={() => setPending({ kind: "all" })}
          >
            Sign out everywhere
          </button>
        </div>
      </div>
      {list.isPending ? (
        <LoadingRows label="Loading sessions" />
      ) : list.error ? (
        <ErrorState message={list.error.message} onRetry={() => list.refetch()} />
      ) : list.data.length === 0 ? (
        <EmptyState title="No active sessions">
          Sessions appear here when you sign in from a browser.
        </EmptyState>
      ) : (
        <table className="table" aria-label="Active sessions">
          <thead>
            <tr>
              <th>Client</th>
              <th>Signed in</th>
              <th>Last seen</th>
              <th>
                <span className="sr-only">Actions</span>
              </th>
            </tr>
          </thead>
          <tbody>
            {list.data.map((s) => (
              <tr key={s.id}>
                <td>
                  <div className={styles.client}>
                    <span>
                      {s.client.summary}{" "}
                      {s.isCurrent ? <span className="badge badge-ok">This session</span> : null}
                    </span>
                    {s.client.address ? (
                      <span className={styles.address}>{s.client.address}</span>
                    ) : null}
                  </div>
                </td>
                <td>
                  <RelativeTime date={s.createdAt} />
                </td>
                <td>
                  <RelativeTime date={s.lastSeenAt} />
                </td>
                <td style={{ textAlign: "right" }}>
                  {s.isCurrent ? null : (
                    <button
                      type="button"
                      className="btn btn-sm"
                      aria-label={`Sign out this session: ${s.client.summary}`}
                      onClick={() => setPending({ kind: "one", id: s.id, label: s.client.summary })}
                    >
                      Sign out this session
                    </button>
                  )}
                </td>
              </tr>
            ))}
          </tbody>
        </table>
      )}
      <ConfirmDialog
        open={pending !== null}
        title={
          pending?.kind === "one"
            ? "Sign out this session?"
            : pending?.kind === "others"
              ? "Sign out everywhere else?"
              : "Sign out everywhere?"
        }
        body={
          pending?.kind === "one"
            ? `${pending.label} will be signed out within a few seconds.`
            : pending?.kind === "others"
              ? "Every other browser signed in to your account will be signed out within a few seconds. This one stays signed in."
              : "Every browser signed in to your account, this one included, will be signed out."
        }
        confirmLabel="Sign out"
        danger
        pending={revoke.isPending || revokeAll.isPending}
        error={error}
        onConfirm={() => void confirm()}
        onClose={() => {
          setPending(null);
          revoke.reset();
          revokeAll.reset();
        }}
      />
    </section>
  );
}
