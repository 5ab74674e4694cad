"use client";
import { useMutation, useQuery } from "@tanstack/react-query";
import Link from "next/link";
import { useId } from "react";
import { useRole } from "@/components/shell/role-context";
import { ErrorState, LoadingRows } from "@/components/ui/states";
import { useToast } from "@/components/ui/toast";
import { useTRPC } from "@/lib/trpc/client";
import { useInvalidateProposals } from "./use-invalidate-proposals";

function allowsSelfModification(definition: unknown): boolean {
  const c = (definition as { constraints?: { allowSelfModification?: unknown } } | null)
    ?.constraints;
  return c?.allowSelfModification === true;
}

/**
 * The workflow's `constraints.allowSelfModification` switch. It lives in the published
 * definition, so turning it on or off publishes a new version (the server does that).
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
  const set = useMutation(
    trpc.proposal.setSelfModification.mutationOptions({
      onSuccess: (r, input) => {
        toast(
          `${input.enabled ? "Proposals allowed" : "Proposals turned off"}: published v${r.version}`,
        );
        invalidate();
      },
    }),
  );
  const enabled = version.data ? allowsSelfModification(version.data.definition) : false;
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
            <span className="switch">
              <input
                type="checkbox"
                role="switch"
                aria-label="Allow change proposals"
                aria-describedby={descId}
                checked={set.isPending ? !!set.variables?.enabled : enabled}
                disabled={!can("admin") || set.isPending}
                onChange={(e) => set.mutate({ workflowId, enabled: e.target.checked })}
              />
              <span aria-hidden />
            </span>
            {enabled ? "Proposals allowed" : "Proposals off"}
            {!can("admin") ? <span className="faint"> (admins can change this)</span> : null}
          </label>
        )}
        {set.error ? (
          <div className="form-error" role="alert">
            {set.error.message}
          </div>
        ) : null}
      </div>
    </section>
  );
}
