"use client";
import { useMutation } from "@tanstack/react-query";
import { useRouter } from "next/navigation";
import { useId } from "react";
import { z } from "zod";
import { FormIssues, FormText, useIssueForm } from "@/components/forms/form";
import { issuesOf } from "@/components/forms/issues";
import { Dialog } from "@/components/ui/dialog";
import { CreateProposalInput } from "@/lib/schemas/proposals";
import { useTRPC } from "@/lib/trpc/client";
import { useInvalidateProposals } from "./use-invalidate-proposals";

/** The fields a person writes; the definition and base come from the editor. */
const ProposeChangeForm = z.object({
  summary: CreateProposalInput.shape.summary,
  rationale: z
    .string()
    .trim()
    .max(20_000)
    .transform((v) => v || undefined),
});

/**
 * Proposes the editor's current draft as a change to the published version, for someone else to
 * review (instead of publishing it directly). Opens the new proposal on success.
 */
export function ProposeChangeDialog({
  open,
  onClose,
  workflowId,
  definition,
  baseHash,
}: {
  open: boolean;
  onClose: () => void;
  workflowId: string;
  definition: unknown;
  /** The published hash the draft was edited against (null: nothing published to change). */
  baseHash: string | null;
}) {
  const trpc = useTRPC();
  const router = useRouter();
  const invalidate = useInvalidateProposals();
  const formId = `${useId()}-propose`;
  const form = useIssueForm(ProposeChangeForm, {
    defaultValues: { summary: "", rationale: "" },
    issues: { fields: ["summary", "rationale"] },
  });
  const create = useMutation(
    trpc.proposal.create.mutationOptions({
      onSuccess: (r) => {
        invalidate();
        form.reset();
        onClose();
        router.push(`/workflows/${workflowId}/proposals/${r.id}`);
      },
      onError: (e) => {
        const issues = issuesOf(e);
        if (issues.length) form.applyIssues(issues);
        else form.setError("root", { message: e.message });
      },
    }),
  );
  const close = () => {
    create.reset();
    form.clearErrors();
    onClose();
  };
  return (
    <Dialog
      open={open}
      onClose={close}
      title="Propose this change"
      footer={
        <>
          <button type="button" className="btn" onClick={close}>
            Cancel
          </button>
          <button
            type="submit"
            form={formId}
            className="btn btn-primary"
            disabled={create.isPending || baseHash === null}
          >
            {create.isPending ? <span className="spinner" aria-hidden /> : null} Create proposal
          </button>
        </>
      }
    >
      <form
        id={formId}
        className="stack"
        noValidate
        onSubmit={form.handleSubmit(({ summary, rationale }) => {
          if (baseHash === null) return;
          create.mutate({
            workflowId,
            baseHash,
            summary,
            ...(rationale ? { rationale } : {}),
            definition,
          });
        })}
      >
        <p className="muted" style={{ margin: 0 }}>
          The current draft becomes a proposal against the published version: a reviewer sees its
          graph and JSON diff, risk and dry run, and approves and applies it. Nothing is published
          until then.
        </p>
        {baseHash === null ? (
          <p className="form-error" role="alert">
            The workflow has no published version yet: publish one before proposing changes to it.
          </p>
        ) : null}
        <FormText
          control={form.control}
          name="summary"
          label="Summary"
          maxLength={500}
          placeholder="One line: what changes"
        />
        <FormText
          control={form.control}
          name="rationale"
          label="Rationale"
          multiline
          rows={4}
          placeholder="Why, and what you checked"
        />
        <FormIssues errors={form.formState.errors} />
      </form>
    </Dialog>
  );
}
