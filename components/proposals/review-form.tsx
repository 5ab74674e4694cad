"use client";
import { useMutation } from "@tanstack/react-query";
import { useId, useState } from "react";
import { useToast } from "@/components/ui/toast";
import { useTRPC } from "@/lib/trpc/client";
import { useInvalidateProposals } from "./use-invalidate-proposals";

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
  const notesId = useId();
  const whyId = useId();
  const [notes, setNotes] = useState("");
  const review = useMutation(
    trpc.proposal.review.mutationOptions({
      onSuccess: (r) => {
        toast(r.status === "approved" ? "Proposal approved" : "Proposal rejected");
        setNotes("");
        invalidate();
      },
      onError: () => invalidate(),
    }),
  );
  const decide = (decision: "approve" | "reject") =>
    review.mutate({ proposalId, decision, notes, shownHash });
  return (
    <form
      className="stack"
      aria-label="Review"
      onSubmit={(e) => {
        e.preventDefault();
        decide("approve");
      }}
    >
      {needsSeniorReviewer ? (
        <div className="callout callout-warn">
          This change loosens a constraint: the reviewer must hold a higher role than the proposer.
        </div>
      ) : null}
      <div className="field">
        <label htmlFor={notesId}>Review notes</label>
        <textarea
          id={notesId}
          rows={3}
          value={notes}
          onChange={(e) => setNotes(e.target.value)}
          placeholder="What you checked, or why you reject it"
          disabled={!canReview || review.isPending}
          style={{ fontFamily: "inherit" }}
        />
      </div>
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
          onClick={() => decide("reject")}
        >
          Reject
        </button>
        {!canReview && why ? (
          <span id={whyId} className="small muted">
            {why}
          </span>
        ) : null}
      </div>
      {review.error ? (
        <div className="form-error" role="alert">
          {review.error.message}
        </div>
      ) : null}
    </form>
  );
}
