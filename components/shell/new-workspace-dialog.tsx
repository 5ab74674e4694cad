"use client";
import { useMutation, useQueryClient } from "@tanstack/react-query";
import { useSession } from "next-auth/react";
import { useRouter } from "next/navigation";
import { useState } from "react";
import { Dialog } from "@/components/ui/dialog";
import { Field } from "@/components/ui/field";
import { useTRPC } from "@/lib/trpc/client";

/** Creates a workspace (the caller becomes its owner) and switches to it. */
export function NewWorkspaceDialog({ open, onClose }: { open: boolean; onClose: () => void }) {
  const trpc = useTRPC();
  const router = useRouter();
  const qc = useQueryClient();
  const { update } = useSession();
  const [name, setName] = useState("");
  const create = useMutation(trpc.workspace.create.mutationOptions());
  async function submit() {
    const ws = await create.mutateAsync({ name });
    await update({ workspaceId: ws.id });
    qc.clear();
    setName("");
    onClose();
    router.push("/workflows");
    router.refresh();
  }
  return (
    <Dialog
      open={open}
      onClose={() => {
        create.reset();
        onClose();
      }}
      title="New workspace"
      footer={
        <>
          <button type="button" className="btn" onClick={onClose}>
            Cancel
          </button>
          <button
            type="button"
            className="btn btn-primary"
            disabled={create.isPending || !name.trim()}
            onClick={() => void submit().catch(() => undefined)}
          >
            Create workspace
          </button>
        </>
      }
    >
      <form
        className="form"
        onSubmit={(e) => {
          e.preventDefault();
          void submit().catch(() => undefined);
        }}
      >
        <Field
          label="Workspace name"
          value={name}
          onChange={(e) => setName(e.target.value)}
          error={create.error?.message}
          autoFocus
        />
        <p className="muted small" style={{ margin: 0 }}>
          You will be its owner. Workflows, runs and members are separate per workspace.
        </p>
      </form>
    </Dialog>
  );
}
