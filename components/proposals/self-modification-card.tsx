"use client";
import { useMutation, useQuery } from "@tanstack/react-query";
import Link from "next/link";
import { useId, useState } from "react";
import { useRole } from "@/components/shell/role-context";
import { ConfirmDialog } from "@/components/ui/dialog";
import { ErrorState, LoadingRows } from "@/components/ui/states";
import { useToast } from "@/components/ui/toast";
import { previewBump } from "@/components/workflows/publish-dialog";
import { useTRPC } from "@/lib/trpc/client";
import { useInvalidateProposals } from "./use-invalidate-proposals";
import switchStyles from "@/components/ui/switch.module.css";

function allowsSelfModification(definition: unknown): boolean {
  const c = (definition as { constraints?: { allowSelfModification?: unknown } } | null)
    ?.constraints;
  return c?.allowSelfModification === true;
}

/**
 * The workflow's `constraints.allowSelfModification` switch. It lives in the published
 * definition, so turning it on or off publishes a new version (the server does that): the switch
 * asks first, naming the version it creates, and the server refuses if another was published
 * since (expectedVersionId).
 */
export function SelfModificationCard({
  workflowId,
  currentVersionId,
}: {
  workflowId: string;
  currentVersionId: string | null;
}) {
  const trpc = useTRPC();
  const toast = useToast();
  const invalidate = useInvalidateProposals();
  const { can } = useRole();
  const descId = useId();
  const version = useQuery({
    ...trpc.workflow.version.queryOptions({ workflowId, versionId: currentVersionId ?? "" }),
    enabled: currentVersionId !== null,
  });
  const [asking, setAsking] = useState<boolean | null>(null);
  const set = useMutation(
    trpc.proposal.setSelfModification.mutationOptions({
      onSuccess: (r, input) => {
        setAsking(null);
        toast(
          `${input.enabled ? "Proposals allowed" : "Proposals turned off"}: published v${r.version}`,
        );
        invalidate();
      },
      // The named version is no longer current: show the new one before asking again.
      onError: () => void version.refetch(),
    }),
  );
  const enabled = version.data ? allowsSelfModification(version.data.definition) : false;
  const next = version.data ? previewBump(version.data.version, "patch") : null;
  return (
    <section className="card" aria-labelledby="selfmod-h">
      <div className="card-head">
        <h2 id="selfmod-h">Change proposals</h2>
        <Link href={`/workflows/${workflowId}/proposals`}>Proposals</Link>
      </div>
      <div className="card-body stack">
        <p id={descId} className="small muted" style={{ margin: 0 }}>
          When on, people, API tokens, the CLI, MCP agents and this workflow&apos;s own{" "}
          <code>propose_change</code> steps may propose changes to it. A proposal never changes the
          workflow by itself: a reviewer other than its author sees the graph and JSON diff, its
          risk, policy checks and a dry run over recent runs, and only an approved proposal can be
          applied as a new version (and rolled back later). When off, every proposal is refused.
        </p>
        {currentVersionId === null ? (
          <p className="small" style={{ margin: 0 }}>
            Publish the workflow first: the setting is part of the published definition.
          </p>
        ) : version.isPending ? (
          <LoadingRows rows={1} label="Loading setting" />
        ) : version.error ? (
          <ErrorState message={version.error.message} onRetry={() => void version.refetch()} />
        ) : (
          <label className="row small" style={{ margin: 0, fontWeight: 400 }}>
            <span className={switchStyles.switch}>
              <input
                type="checkbox"
                role="switch"
                aria-label="Allow change proposals"
                aria-describedby={descId}
                checked={enabled}
                disabled={!can("admin") || set.isPending}
                onChange={(e) => setAsking(e.target.checked)}
              />
              <span aria-hidden />
            </span>
            {enabled ? "Proposals allowed" : "Proposals off"}
            {!can("admin") ? <span className="faint"> (admins can change this)</span> : null}
          </label>
        )}
        <p className="small muted" style={{ margin: 0 }}>
          The switch is part of the workflow&apos;s definition: changing it publishes a new version
          {next ? ` (v${next})` : ""} with only this setting changed, and the draft follows.
        </p>
      </div>
      <ConfirmDialog
        open={asking !== null && version.data !== undefined}
        title={`${asking ? "Allow change proposals" : "Turn off change proposals"} and publish v${next}?`}
        body={
          <>
            This publishes <strong>v{next}</strong>: v{version.data?.version} with{" "}
            <code>constraints.allowSelfModification: {String(asking)}</code> and nothing else
            changed. New runs use v{next}; the draft gets the same change.{" "}
            {asking
              ? "Proposals still change nothing by themselves: each one needs a reviewer's approval and an apply."
              : "New proposals are refused; open ones become stale (written against an older version) and cannot be applied."}
          </>
        }
        confirmLabel={`Publish v${next}`}
        pending={set.isPending}
        error={set.error?.message}
        onClose={() => {
          setAsking(null);
          set.reset();
        }}
        onConfirm={() =>
          asking !== null &&
          version.data &&
          set.mutate({ workflowId, enabled: asking, expectedVersionId: version.data.id })
        }
      />
    </section>
  );
}
