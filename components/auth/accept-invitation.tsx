"use client";
import { useMutation } from "@tanstack/react-query";
import { signOut, useSession } from "next-auth/react";
import { useRouter } from "next/navigation";
import { useTRPC } from "@/lib/trpc/client";
import auth from "@/components/auth/auth.module.css";

export function AcceptInvitation(props: {
  token: string;
  workspaceName: string;
  role: string;
  invitedBy: string;
  invitedEmail: string;
  signedInAs: string;
}) {
  const trpc = useTRPC();
  const router = useRouter();
  const { update } = useSession();
  const accept = useMutation(trpc.invitation.accept.mutationOptions());
  const mismatch = props.invitedEmail !== props.signedInAs.toLowerCase();

  return (
    <div className={`card ${auth.card}`}>
      <div className="card-body stack">
        <h1>Join {props.workspaceName}</h1>
        <p className="muted">
          {props.invitedBy} invited {props.invitedEmail} as <strong>{props.role}</strong>.
        </p>
        {mismatch ? (
          <div className="callout callout-warn">
            You are signed in as {props.signedInAs}. This invitation is for {props.invitedEmail}.{" "}
            <button
              type="button"
              className="btn btn-sm"
              onClick={() => signOut({ callbackUrl: `/invite/${props.token}` })}
            >
              Sign out
            </button>
          </div>
        ) : null}
        {accept.error ? (
          <div className="form-error" role="alert">
            {accept.error.message}
          </div>
        ) : null}
        <button
          type="button"
          className="btn btn-primary"
          disabled={accept.isPending || mismatch}
          onClick={async () => {
            const res = await accept.mutateAsync({ token: props.token });
            await update({ workspaceId: res.workspaceId });
            router.replace("/workflows");
            router.refresh();
          }}
        >
          Accept invitation
        </button>
      </div>
    </div>
  );
}
