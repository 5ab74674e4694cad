"use client";
import { useMutation, useQuery, useQueryClient } from "@tanstack/react-query";
import { useState } from "react";
import { ConfirmDialog } from "@/components/ui/dialog";
import { ErrorState, LoadingRows } from "@/components/ui/states";
import { useToast } from "@/components/ui/toast";
import { useTRPC } from "@/lib/trpc/client";

/**
 * Settings → General: the owner's switch that makes two-factor mandatory for members. It acts at
 * once (Settings' rule for actions, README → Settings), so it asks first.
 */
export function TwoFactorRequirement() {
  const trpc = useTRPC();
  const qc = useQueryClient();
  const toast = useToast();
  const req = useQuery(trpc.twoFactor.workspaceRequirement.queryOptions());
  const [asking, setAsking] = useState<boolean | null>(null);
  const set = useMutation(
    trpc.twoFactor.setWorkspaceRequirement.mutationOptions({
      onSuccess: (r) => {
        setAsking(null);
        toast(r.required ? "Two-factor is now required" : "Two-factor is no longer required");
        void qc.invalidateQueries({ queryKey: trpc.twoFactor.workspaceRequirement.queryKey() });
      },
    }),
  );
  return (
    <section className="card" aria-labelledby="require-2fa-h">
      <div className="card-head">
        <h2 id="require-2fa-h">Two-factor sign-in</h2>
      </div>
      {req.isPending ? (
        <LoadingRows rows={1} />
      ) : req.error ? (
        <ErrorState message={req.error.message} onRetry={() => req.refetch()} />
      ) : (
        <div className="card-body stack">
          <label className="row" style={{ gap: 8, alignItems: "center" }}>
            <input
              type="checkbox"
              checked={req.data.required}
              disabled={!req.data.canChange || set.isPending}
              onChange={(e) => setAsking(e.target.checked)}
            />
            Require two-factor sign-in for members
          </label>
          <p className="muted small">
            Members who sign in with a password and have no authenticator set up are asked to set
            one up at their next sign-in; GitHub sign-in is exempt (GitHub has its own two-factor).
            {req.data.canChange ? "" : " Only owners can change this."}
          </p>
        </div>
      )}
      <ConfirmDialog
        open={asking !== null}
        title={asking ? "Require two-factor sign-in?" : "Stop requiring two-factor sign-in?"}
        body={
          asking
            ? "Takes effect at once: members without an authenticator must set one up at their next sign-in before they can do anything else."
            : "Takes effect at once: members may sign in with a password alone again."
        }
        confirmLabel={asking ? "Require two-factor" : "Stop requiring"}
        danger={asking === false}
        pending={set.isPending}
        error={set.error?.message}
        onClose={() => {
          setAsking(null);
          set.reset();
        }}
        onConfirm={() => asking !== null && set.mutate({ required: asking })}
      />
    </section>
  );
}
