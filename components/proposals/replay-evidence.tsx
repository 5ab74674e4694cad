"use client";
import Link from "next/link";
import type {
  DryRunRunReport,
  JsonChange,
  ReplayOutcome,
  ReplayStepVerdict,
} from "@/lib/workflow/dry-run-types";
import type { Verification, VerificationLevel } from "@/lib/workflow/verification";

export const STEP_VERDICT_TEXT: Record<ReplayStepVerdict, { label: string; mark: string }> = {
  same: { label: "Same", mark: "=" },
  different_output: { label: "Different output", mark: "≠" },
  different_path: { label: "Different path", mark: "↷" },
  unverified: { label: "Unverified", mark: "?" },
};

const OUTCOME_TEXT: Record<ReplayOutcome, { label: string; tone: string }> = {
  same_outcome: { label: "Same outcome", tone: "badge badge-ok" },
  different_outcome: { label: "Different outcome", tone: "badge badge-warn" },
  cannot_tell: { label: "Cannot tell", tone: "badge" },
};

const LEVEL_TEXT: Record<VerificationLevel, { label: string; tone: string }> = {
  verified: { label: "Verified", tone: "badge badge-ok" },
  partial: { label: "Partially verified", tone: "badge badge-warn" },
  unproven: { label: "Unproven", tone: "badge badge-danger" },
};

/** Worst first: the canvas shows, per step, the worst verdict any replayed run gave it. */
const SEVERITY: ReplayStepVerdict[] = ["unverified", "different_output", "different_path", "same"];

/** Top-level step id → its worst verdict across the replayed runs (loop iterations excluded). */
export function verdictsByStep(
  runs: readonly DryRunRunReport[],
): Record<string, ReplayStepVerdict> {
  const out: Record<string, ReplayStepVerdict> = {};
  for (const r of runs)
    for (const s of r.steps ?? []) {
      if (s.path.includes("[") || s.ran === "original") continue;
      const seen = out[s.path];
      if (!seen || SEVERITY.indexOf(s.verdict) < SEVERITY.indexOf(seen)) out[s.path] = s.verdict;
    }
  return out;
}

function Diff({ changes }: { changes: readonly JsonChange[] }) {
  return (
    <ul className="mono small" style={{ margin: 0, paddingLeft: 16 }}>
      {changes.map((c, i) => (
        <li key={i}>
          {c.path.join(".") || "(value)"}:{" "}
          {c.op === "added"
            ? `added ${JSON.stringify(c.after)}`
            : c.op === "removed"
              ? `removed ${JSON.stringify(c.before)}`
              : `${JSON.stringify(c.before)} → ${JSON.stringify(c.after)}`}
        </li>
      ))}
    </ul>
  );
}

function RunTable({ run, shadow }: { run: DryRunRunReport; shadow: boolean }) {
  const outcome = run.outcome ? OUTCOME_TEXT[run.outcome] : null;
  return (
    <section aria-label={`Replay of run ${run.runId}`} className="stack">
      <div className="row small">
        <Link href={`/runs/${run.runId}`} className="mono">
          {run.runId}
        </Link>
        {shadow ? <span className="badge">shadow run</span> : null}
        {outcome ? <span className={outcome.tone}>{outcome.label}</span> : null}
        {run.replayError ? (
          <span className="form-error">The replay failed: {run.replayError}</span>
        ) : null}
      </div>
      <table className="table" aria-label={`Steps of run ${run.runId}`}>
        <thead>
          <tr>
            <th scope="col">Step</th>
            <th scope="col">Verdict</th>
            <th scope="col">Diff</th>
          </tr>
        </thead>
        <tbody>
          {(run.steps ?? []).map((s) => (
            <tr key={s.path}>
              <td className="mono small">{s.path}</td>
              <td className="small">
                {STEP_VERDICT_TEXT[s.verdict].mark} {STEP_VERDICT_TEXT[s.verdict].label}
                {s.reason ? <div className="muted">{s.reason}</div> : null}
              </td>
              <td>
                {s.diff?.length ? <Diff changes={s.diff} /> : <span className="faint">—</span>}
              </td>
            </tr>
          ))}
        </tbody>
      </table>
    </section>
  );
}

/**
 * The engine's evidence (issue #29): the verification level with its reasons, then one table per
 * replayed run — dry-run runs and shadow runs — giving each step's verdict and output diff.
 */
export function ReplayEvidence({
  verification,
  requireVerifiedToApply,
  runs,
  shadowRuns,
}: {
  verification: Verification;
  requireVerifiedToApply: boolean;
  runs: readonly DryRunRunReport[];
  shadowRuns: readonly DryRunRunReport[];
}) {
  const level = LEVEL_TEXT[verification.level];
  const dryIds = new Set(runs.map((r) => r.runId));
  const shadows = shadowRuns.filter((r) => !dryIds.has(r.runId));
  return (
    <div className="stack">
      <div className="row">
        <strong>Verification</strong>
        <span className={level.tone} data-testid="verification-level">
          {level.label}
        </span>
        {requireVerifiedToApply ? (
          <span className="small muted">This workspace applies only verified proposals.</span>
        ) : null}
      </div>
      <ul
        className="small"
        style={{ margin: 0, paddingLeft: 18 }}
        aria-label="Verification reasons"
      >
        {verification.reasons.map((r, i) => (
          <li key={i}>{r}</li>
        ))}
      </ul>
      {[...runs, ...shadows]
        .filter((r) => r.steps || r.replayError)
        .map((r) => (
          <RunTable key={r.runId} run={r} shadow={!dryIds.has(r.runId)} />
        ))}
    </div>
  );
}
