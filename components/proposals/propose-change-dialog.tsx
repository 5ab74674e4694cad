"use client";
import { useMutation } from "@tanstack/react-query";
import { useRouter } from "next/navigation";
import { useId, useState } from "react";
import { Dialog } from "@/components/ui/dialog";
import { useTRPC } from "@/lib/trpc/client";
import { useInvalidateProposals } from "./use-invalidate-proposals";

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
  const summaryId = useId();
  const rationaleId = useId();
  const [summary, setSummary] = useState("");
  const [rationale, setRationale] = useState("");
  const create = useMutation(
    trpc.proposal.create.mutationOptions({
      onSuccess: (r) => {
        invalidate();
        setSummary("");
        setRationale("");
        onClose();
        router.push(`/workflows/${workflowId}/proposals/${r.id}`);
      },
    }),
  );
  const close = () => {
    create.reset();
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
            form={`${summaryId}-form`}
            className="btn btn-primary"
            disabled={create.isPending || summary.trim() === "" || baseHash === null}
          >
            {create.isPending ? <span className="spinner" aria-hidden /> : null} Create proposal
          </button>
        </>
      }
    >
      <form
        id={`${summaryId}-form`}
        className="stack"
        onSubmit={(e) => {
          e.preventDefault();
          if (baseHash === null) return;
          create.mutate({
            workflowId,
            baseHash,
            summary: summary.trim(),
            ...(rationale.trim() ? { rationale: rationale.trim() } : {}),
            definition,
          });
        }}
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
        <div className="field">
          <label htmlFor={summaryId}>Summary</label>
          <input
            id={summaryId}
            type="text"
            value={summary}
            onChange={(e) => setSummary(e.target.value)}
            maxLength={500}
            placeholder="One line: what changes"
            required
          />
        </div>
        <div className="field">
          <label htmlFor={rationaleId}>Rationale</label>
          <textarea
            id={rationaleId}
            rows={4}
            value={rationale}
            onChange={(e) => setRationale(e.target.value)}
            placeholder="Why, and what you checked"
            style={{ fontFamily: "inherit" }}
          />
        </div>
        {create.error ? (
          <div className="form-error" role="alert">
            {create.error.message}
          </div>
        ) : null}
      </form>
    </Dialog>
  );
}
