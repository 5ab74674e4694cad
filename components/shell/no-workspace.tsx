"use client";
import { useMutation } from "@tanstack/react-query";
import { signOut, useSession } from "next-auth/react";
import { useRouter } from "next/navigation";
import { useState } from "react";
import { Field } from "@/components/ui/field";
import { useTRPC } from "@/lib/trpc/client";
import auth from "@/components/auth/auth.module.css";

export function NoWorkspace({ name }: { name: string }) {
  const trpc = useTRPC();
  const router = useRouter();
  const { update } = useSession();
  const [wsName, setWsName] = useState("");
  const create = useMutation(trpc.workspace.create.mutationOptions());
  return (
    <main id="main" className={auth.wrap}>
      <div className={`card ${auth.card}`}>
        <div className="card-body stack">
          <h1>No workspace</h1>
          <p className="muted">
            {name}, you are not a member of any workspace. Accept an invitation link, or create a
            workspace.
          </p>
          {create.error ? (
            <div className="form-error" role="alert">
              {create.error.message}
            </div>
          ) : null}
          <form
            className="form"
            onSubmit={async (e) => {
              e.preventDefault();
              const ws = await create.mutateAsync({ name: wsName });
              await update({ workspaceId: ws.id });
              router.refresh();
            }}
          >
            <Field
              label="Workspace name"
              value={wsName}
              onChange={(e) => setWsName(e.target.value)}
              required
            />
            <button className="btn btn-primary" type="submit" disabled={create.isPending}>
              Create workspace
            </button>
          </form>
          <button
            type="button"
            className="btn"
            onClick={() => signOut({ callbackUrl: "/sign-in" })}
          >
            Sign out
          </button>
        </div>
      </div>
    </main>
  );
}
