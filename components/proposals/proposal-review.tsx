"use client";
import { useMutation, useQuery } from "@tanstack/react-query";
import Link from "next/link";
import { DefinitionDiffView } from "@/components/diff/definition-diff-view";
import { ErrorState, LoadingRows } from "@/components/ui/states";
import { RelativeTime } from "@/components/ui/time";
import { useTRPC } from "@/lib/trpc/client";
import { isOpenProposalStatus, proposalStatusLabel } from "@/lib/workflow/status";
import { ApplyPanel, RollbackPanel } from "./apply-panel";
import { DryRunReport } from "./dry-run-report";
import { ReplayEvidence, verdictsByStep } from "./replay-evidence";
import { InflightImpactPanel } from "./inflight-impact-panel";
import { ProposalStatusBadge, RiskBadge } from "./proposal-badges";
import { authorText, PROPOSAL_POLL_MS } from "./proposal-format";
import { ReviewForm } from "./review-form";
import { PolicyVerdicts, RiskReasons } from "./risk-panel";
import { RuleVerdictList } from "./rule-verdict-list";
import { ThreeWayView } from "./three-way-view";
import { useInvalidateProposals } from "./use-invalidate-proposals";
import grid from "@/components/ui/grids.module.css";

/**
 * The review screen of one change proposal (SPEC §8): who proposes what and why, the change as a
 * summary, graph diff and JSON diff, its risk, policy verdicts and dry run, then review, apply and
 * rollback. Actions the server would refuse are disabled with its reason (`can.why`).
 */
export function ProposalReview({
  workflowId,
  proposalId,
}: {
  workflowId: string;
  proposalId: string;
}) {
  const trpc = useTRPC();
  const invalidate = useInvalidateProposals();
  const q = useQuery({
    ...trpc.proposal.get.queryOptions({ proposalId }),
    // Live while open: others' reviews, an apply, expiry, the dry run and a stale base all change
    // it. A closed proposal's status is final, so polling stops there.
    refetchInterval: (query) =>
      query.state.data && !isOpenProposalStatus(query.state.data.status) ? false : PROPOSAL_POLL_MS,
  });
  const retry = useMutation(
    trpc.proposal.retryDryRun.mutationOptions({ onSuccess: () => invalidate() }),
  );
  const listHref = `/workflows/${workflowId}/proposals`;

  if (q.isPending)
    return (
      <div className="card">
        <LoadingRows rows={6} label="Loading proposal" />
      </div>
    );
  if (q.error)
    return (
      <div className="card">
        <ErrorState
          message={
            q.error.data?.code === "NOT_FOUND"
              ? "This proposal does not exist, or it belongs to another workspace."
              : q.error.message
          }
          onRetry={() => void q.refetch()}
        />
      </div>
    );
  const p = q.data;
  const open = isOpenProposalStatus(p.status);
  const currentVersion = p.current?.version ?? p.base.version;

  return (
    <div className="stack" data-testid="proposal-review">
      <div>
        <Link href={listHref} className="small">
          ← Proposals
        </Link>
      </div>
      <section className="card" aria-labelledby="proposal-h">
        <div className="card-head">
          <h2 id="proposal-h">{p.summary}</h2>
          <div className="row">
            <ProposalStatusBadge status={p.status} />
            <RiskBadge risk={p.risk} />
          </div>
        </div>
        <div className="card-body stack">
          <dl className="row small" style={{ flexWrap: "wrap", gap: "4px 24px", margin: 0 }}>
            <div>
              <dt className="muted">Proposed by</dt>
              <dd style={{ margin: 0 }}>{authorText(p.author)}</dd>
            </div>
            <div>
              <dt className="muted">Created</dt>
              <dd style={{ margin: 0 }}>
                <RelativeTime date={p.createdAt} />
              </dd>
            </div>
            {open ? (
              <div>
                <dt className="muted">Expires</dt>
                <dd style={{ margin: 0 }}>
                  <RelativeTime date={p.expiresAt} />
                </dd>
              </div>
            ) : null}
            <div>
              <dt className="muted">Base</dt>
              <dd style={{ margin: 0 }}>
                v{p.base.version}{" "}
                <span className="mono faint" title={p.base.hash}>
                  {p.base.hash.slice(7, 19)}
                </span>
                {p.baseRequested === "current" ? (
                  <span
                    className="small muted"
                    title="The proposer did not name a version: the change was taken as written against whatever was current"
                  >
                    {" "}
                    (proposed against &ldquo;current&rdquo;)
                  </span>
                ) : null}
              </dd>
            </div>
            <div>
              <dt className="muted">Proposed hash</dt>
              <dd style={{ margin: 0 }} className="mono faint" title={p.proposed.hash}>
                {p.proposed.hash.slice(7, 19)}
              </dd>
            </div>
            {p.origin?.runId ? (
              <div>
                <dt className="muted">From run</dt>
                <dd style={{ margin: 0 }}>
                  <Link href={`/runs/${p.origin.runId}`} className="mono">
                    {p.origin.runId}
                  </Link>
                  {p.origin.stepId ? <span className="mono"> · {p.origin.stepId}</span> : null}
                </dd>
              </div>
            ) : null}
          </dl>
          <div>
            <h3 style={{ margin: "0 0 4px" }}>Rationale</h3>
            {p.rationale ? (
              <p style={{ margin: 0, whiteSpace: "pre-wrap" }} data-testid="proposal-rationale">
                {p.rationale}
              </p>
            ) : (
              <p className="muted small" style={{ margin: 0 }}>
                No rationale given.
              </p>
            )}
          </div>
        </div>
      </section>

      {open && p.isStale ? (
        <div className="callout callout-warn" role="status">
          The workflow has changed since this proposal was written (based on v{p.base.version}, now
          v{p.current?.version ?? "?"}). Applying it would overwrite those changes, so apply refuses
          it (stale base); compare the three versions below and ask for a proposal against the
          current version.
        </div>
      ) : null}

      <section className="card" aria-labelledby="decision-h">
        <div className="card-head">
          <h2 id="decision-h">Decision</h2>
          <span className="small muted">{proposalStatusLabel(p.status)}</span>
        </div>
        <div className="card-body stack">
          {p.status === "pending" ? (
            <ReviewForm
              proposalId={p.id}
              shownHash={p.reviewedContentHash}
              canReview={p.can.review}
              why={p.can.why}
              needsSeniorReviewer={p.needsSeniorReviewer}
            />
          ) : p.status === "approved" ? (
            <ApplyPanel
              proposalId={p.id}
              currentVersion={currentVersion}
              canApply={p.can.apply}
              why={p.can.why}
              needsOverride={p.requireVerifiedToApply && p.verification.level !== "verified"}
            />
          ) : p.status === "applied" && p.appliedVersion ? (
            <RollbackPanel
              proposalId={p.id}
              appliedVersion={p.appliedVersion.version}
              baseVersion={p.base.version}
              canRollback={p.can.rollback}
              why={p.can.why}
            />
          ) : (
            <p className="small muted" style={{ margin: 0 }}>
              This proposal is {proposalStatusLabel(p.status).toLowerCase()}: nothing more can be
              done with it.{p.can.why ? ` ${p.can.why}` : ""}
            </p>
          )}
          {p.reviews.length > 0 ? (
            <div>
              <h3 style={{ margin: "0 0 4px" }}>Reviews</h3>
              <ul className="stack" style={{ margin: 0, paddingLeft: 18 }} aria-label="Reviews">
                {p.reviews.map((r, i) => (
                  <li key={i}>
                    <strong>{r.reviewer.name}</strong>{" "}
                    <span
                      className={r.decision === "approve" ? "badge badge-ok" : "badge badge-danger"}
                    >
                      {r.decision === "approve" ? "approved" : "rejected"}
                    </span>{" "}
                    <RelativeTime date={r.createdAt} />
                    {r.notes ? (
                      <div className="small" style={{ whiteSpace: "pre-wrap" }}>
                        {r.notes}
                      </div>
                    ) : null}
                  </li>
                ))}
              </ul>
            </div>
          ) : null}
        </div>
      </section>

      {open ? <InflightImpactPanel proposalId={p.id} /> : null}

      <div className={grid.overview}>
        <section className="card" aria-labelledby="risk-h">
          <div className="card-head">
            <h2 id="risk-h">Risk</h2>
            <RiskBadge risk={p.risk} />
          </div>
          <div className="card-body">
            <RiskReasons reasons={p.riskReasons} />
          </div>
        </section>
        <section className="card" aria-labelledby="policy-h">
          <div className="card-head">
            <h2 id="policy-h">Policies</h2>
          </div>
          <div className="card-body">
            <PolicyVerdicts verdicts={p.verdicts} />
          </div>
        </section>
        <section className="card" aria-labelledby="rules-h">
          <div className="card-head">
            <h2 id="rules-h">Proposal rules</h2>
          </div>
          <div className="card-body">
            <RuleVerdictList verdicts={p.ruleVerdicts} />
          </div>
        </section>
      </div>

      <section className="card" aria-labelledby="dryrun-h">
        <div className="card-head">
          <h2 id="dryrun-h">Dry run</h2>
          <span className="small muted">Recent runs replayed with recorded side effects</span>
        </div>
        <div className="card-body">
          <DryRunReport
            dryRun={p.dryRun}
            onRetry={open ? () => retry.mutate({ proposalId: p.id }) : undefined}
            retrying={retry.isPending}
            retryError={retry.error?.message}
          />
          <ReplayEvidence
            verification={p.verification}
            requireVerifiedToApply={p.requireVerifiedToApply}
            runs={p.dryRun.report?.runs ?? []}
            shadowRuns={p.shadowRuns}
          />
        </div>
      </section>

      <section className="card" aria-labelledby="changes-h">
        <div className="card-head">
          <h2 id="changes-h">Changes</h2>
        </div>
        <div className="card-body">
          <DefinitionDiffView
            before={p.base.definition}
            after={p.proposed.definition}
            beforeLabel={`v${p.base.version}`}
            afterLabel="proposed"
            changeSummary={p.changeSummary}
            idPrefix="proposal"
            verdicts={verdictsByStep([...(p.dryRun.report?.runs ?? []), ...p.shadowRuns])}
          />
        </div>
      </section>

      {open && p.isStale && p.current ? (
        <section className="card" aria-labelledby="threeway-h">
          <div className="card-head">
            <h2 id="threeway-h">Three-way view</h2>
            <span className="small muted">base · current · proposed</span>
          </div>
          <div className="card-body">
            <ThreeWayView
              base={{ version: p.base.version, definition: p.base.definition }}
              current={{ version: p.current.version, definition: p.current.definition }}
              proposed={{ definition: p.proposed.definition }}
            />
          </div>
        </section>
      ) : null}
    </div>
  );
}
