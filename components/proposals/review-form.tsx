"use client";
import { useMutation } from "@tanstack/react-query";
import { useId } from "react";
import { z } from "zod";
import { FormIssues, FormText, useIssueForm } from "@/components/forms/form";
import { issuesOf } from "@/components/forms/issues";
import { useToast } from "@/components/ui/toast";
import { ReviewProposalInput, type ReviewDecision } from "@/lib/schemas/proposals";
import { useTRPC } from "@/lib/trpc/client";
import { useInvalidateProposals } from "./use-invalidate-proposals";

const ReviewNotesForm = z.object({ notes: ReviewProposalInput.shape.notes });

/**
 * Approve or reject with notes. `shownHash` proves what this screen showed: if the proposal (or
 * its dry run) changed since, the server refuses and the reviewer looks again.
 */
export function ReviewForm({
  proposalId,
  shownHash,
  canReview,
  why,
  needsSeniorReviewer,
}: {
  proposalId: string;
  shownHash: string;
  canReview: boolean;
  why: string | null;
  needsSeniorReviewer: boolean;
}) {
  const trpc = useTRPC();
  const toast = useToast();
  const invalidate = useInvalidateProposals();
  const whyId = useId();
  const form = useIssueForm(ReviewNotesForm, {
    defaultValues: { notes: "" },
    issues: { fields: ["notes"] },
  });
  const review = useMutation(
    trpc.proposal.review.mutationOptions({
      onSuccess: (r) => {
        toast(r.status === "approved" ? "Proposal approved" : "Proposal rejected");
        form.reset();
        invalidate();
      },
      onError: (e) => {
        form.applyIssues(issuesOf(e));
        invalidate();
      },
    }),
  );
  const decide = (decision: ReviewDecision) =>
    form.handleSubmit(({ notes }) => review.mutate({ proposalId, decision, notes, shownHash }));
  return (
    <form className="stack" aria-label="Review" noValidate onSubmit={decide("approve")}>
      {needsSeniorReviewer ? (
        <div className="callout callout-warn">
          This change loosens a constraint: the reviewer must hold a higher role than the proposer.
        </div>
      ) : null}
      <FormText
        control={form.control}
        name="notes"
        label="Review notes"
        multiline
        rows={3}
        placeholder="What you checked, or why you reject it"
        disabled={!canReview || review.isPending}
      />
      <div className="row">
        <button
          type="submit"
          className="btn btn-primary"
          disabled={!canReview || review.isPending}
          aria-describedby={!canReview && why ? whyId : undefined}
        >
          {review.isPending && review.variables?.decision === "approve" ? (
            <span className="spinner" aria-hidden />
          ) : null}
          Approve
        </button>
        <button
          type="button"
          className="btn btn-danger"
          disabled={!canReview || review.isPending}
          aria-describedby={!canReview && why ? whyId : undefined}
          onClick={(e) => void decide("reject")(e)}
        >
          Reject
        </button>
        {!canReview && why ? (
          <span id={whyId} className="small muted">
            {why}
          </span>
        ) : null}
      </div>
      <FormIssues
        errors={form.formState.errors}
        fallback={review.error && !form.formState.errors.notes ? review.error.message : null}
      />
    </form>
  );
}
