"use client";
import { useMutation } from "@tanstack/react-query";
import { useSession } from "next-auth/react";
import { FormIssues, FormText, useIssueForm } from "@/components/forms/form";
import { issuesOf } from "@/components/forms/issues";
import { Dialog } from "@/components/ui/dialog";
import { CreateWorkspaceInput } from "@/lib/schemas/workspace";
import { useTRPC } from "@/lib/trpc/client";
import { enterWorkspace } from "./enter-workspace";

/** Creates a workspace (the caller becomes its owner) and switches to it. */
export function NewWorkspaceDialog({ open, onClose }: { open: boolean; onClose: () => void }) {
  const trpc = useTRPC();
  const { update } = useSession();
  const form = useIssueForm(CreateWorkspaceInput, { defaultValues: { name: "" } });
  const create = useMutation(trpc.workspace.create.mutationOptions());
  const submit = form.handleSubmit(async (input) => {
    try {
      const ws = await create.mutateAsync(input);
      await update({ workspaceId: ws.id });
      form.reset();
      onClose();
      enterWorkspace();
    } catch (e) {
      const issues = issuesOf(e);
      if (issues.length) form.applyIssues(issues);
      else form.setError("root", { message: (e as Error).message });
    }
  });
  const close = () => {
    create.reset();
    form.clearErrors();
    onClose();
  };
  return (
    <Dialog
      open={open}
      onClose={close}
      title="New workspace"
      footer={
        <>
          <button type="button" className="btn" onClick={close}>
            Cancel
          </button>
          <button
            type="submit"
            form="new-workspace-form"
            className="btn btn-primary"
            disabled={create.isPending}
          >
            Create workspace
          </button>
        </>
      }
    >
      <form id="new-workspace-form" className="form" noValidate onSubmit={(e) => void submit(e)}>
        <FormText control={form.control} name="name" label="Workspace name" autoFocus />
        <FormIssues errors={form.formState.errors} />
        <p className="muted small" style={{ margin: 0 }}>
          You will be its owner. Workflows, runs and members are separate per workspace.
        </p>
      </form>
    </Dialog>
  );
}
