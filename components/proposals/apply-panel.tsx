"use client";
import { useMutation } from "@tanstack/react-query";
import { useId, useState } from "react";
import { ConfirmDialog } from "@/components/ui/dialog";
import { useToast } from "@/components/ui/toast";
import { previewBump } from "@/components/workflows/publish-dialog";
import { useTRPC } from "@/lib/trpc/client";
import { useInvalidateProposals } from "./use-invalidate-proposals";

type Bump = "patch" | "minor" | "major";

/** Apply an approved proposal as a new version (choosing the bump), explaining a refusal. */
export function ApplyPanel({
  proposalId,
  currentVersion,
  canApply,
  why,
  needsOverride = false,
}: {
  proposalId: string;
  currentVersion: string;
  canApply: boolean;
  why: string | null;
  /** The workspace applies only verified proposals and this one is not: an admin gives a reason. */
  needsOverride?: boolean;
}) {
  const trpc = useTRPC();
  const toast = useToast();
  const invalidate = useInvalidateProposals();
  const bumpId = useId();
  const whyId = useId();
  const [bump, setBump] = useState<Bump>("patch");
  const [overrideReason, setOverrideReason] = useState("");
  const overrideId = useId();
  const apply = useMutation(
    trpc.proposal.applyChange.mutationOptions({
      onSuccess: (r) => {
        toast(`Applied as v${r.version}`);
        invalidate();
      },
      onError: () => invalidate(),
    }),
  );
  return (
    <div className="stack">
      <p className="small muted" style={{ margin: 0 }}>
        Applying re-checks the base hash, expiry and policies, then publishes the proposed
        definition as a new version in one step. New runs use it; running ones keep theirs.
      </p>
      {needsOverride ? (
        <div className="field">
          <label htmlFor={overrideId}>Reason to apply without verification (admins only)</label>
          <textarea
            id={overrideId}
            rows={2}
            value={overrideReason}
            onChange={(e) => setOverrideReason(e.target.value)}
            disabled={!canApply || apply.isPending}
          />
          <div className="muted small">
            This proposal is not verified and the workspace requires it. The reason is kept in the
            audit log.
          </div>
        </div>
      ) : null}
      <div className="row">
        <label htmlFor={bumpId} className="small">
          Version
        </label>
        <select
          id={bumpId}
          value={bump}
          onChange={(e) => setBump(e.target.value as Bump)}
          style={{ width: 200 }}
          disabled={!canApply || apply.isPending}
        >
          {(["patch", "minor", "major"] as const).map((b) => (
            <option key={b} value={b}>
              {b} → v{previewBump(currentVersion, b)}
            </option>
          ))}
        </select>
        <button
          type="button"
          className="btn btn-primary"
          disabled={!canApply || apply.isPending}
          aria-describedby={!canApply && why ? whyId : undefined}
          onClick={() =>
            apply.mutate({
              proposalId,
              bump,
              ...(needsOverride && overrideReason.trim()
                ? { overrideReason: overrideReason.trim() }
                : {}),
            })
          }
        >
          {apply.isPending ? <span className="spinner" aria-hidden /> : null}
          Apply as v{previewBump(currentVersion, bump)}
        </button>
        {!canApply && why ? (
          <span id={whyId} className="small muted">
            {why}
          </span>
        ) : null}
      </div>
      {apply.error ? (
        <div className="form-error" role="alert">
          {apply.error.message}
        </div>
      ) : null}
    </div>
  );
}

/** After apply: publish the base version's content again (an audited, append-only rollback). */
export function RollbackPanel({
  proposalId,
  appliedVersion,
  baseVersion,
  canRollback,
  why,
}: {
  proposalId: string;
  appliedVersion: string;
  baseVersion: string;
  canRollback: boolean;
  why: string | null;
}) {
  const trpc = useTRPC();
  const toast = useToast();
  const invalidate = useInvalidateProposals();
  const whyId = useId();
  const [confirming, setConfirming] = useState(false);
  const rollback = useMutation(
    trpc.proposal.rollback.mutationOptions({
      onSuccess: (r) => {
        toast(
          r.alreadyAtVersion
            ? `v${baseVersion}'s content is already live (v${r.version}): nothing to roll back`
            : `Rolled back: v${baseVersion} is live again as v${r.version}`,
        );
        setConfirming(false);
        invalidate();
      },
    }),
  );
  return (
    <div className="stack">
      <p className="small" style={{ margin: 0 }}>
        Applied as <strong>v{appliedVersion}</strong>.
      </p>
      <div className="row">
        <button
          type="button"
          className="btn"
          disabled={!canRollback}
          aria-describedby={!canRollback && why ? whyId : undefined}
          onClick={() => setConfirming(true)}
        >
          Roll back to v{baseVersion}
        </button>
        {!canRollback && why ? (
          <span id={whyId} className="small muted">
            {why}
          </span>
        ) : null}
      </div>
      <ConfirmDialog
        open={confirming}
        title={`Roll back to v${baseVersion}?`}
        body={
          <>
            A new version is published with exactly the content of v{baseVersion}; new runs use it.
            v{appliedVersion} stays in the history. Running runs keep their version.
          </>
        }
        confirmLabel="Roll back"
        pending={rollback.isPending}
        error={rollback.error?.message}
        onClose={() => {
          setConfirming(false);
          rollback.reset();
        }}
        onConfirm={() => rollback.mutate({ proposalId })}
      />
    </div>
  );
}
