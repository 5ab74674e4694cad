/**
 * A proposal's verification level (issue #29 item 3), computed from the engine's own evidence —
 * the dry run's replays and the shadow runs — never from anything the proposer says:
 * - `verified`: at least one run replayed, every changed step exercised by one of them, no
 *   unverified step and no replay error;
 * - `partial`: some replayed run, but not all of that;
 * - `unproven`: no replayed run at all.
 */
import type { DefinitionDiff } from "./diff";
import type { DryRunRunReport } from "./dry-run-types";

export const VERIFICATION_LEVELS = ["verified", "partial", "unproven"] as const;
export type VerificationLevel = (typeof VERIFICATION_LEVELS)[number];

export interface Verification {
  level: VerificationLevel;
  /** Why, one sentence each (the review screen, the API and the apply refusal list them). */
  reasons: string[];
  /** Replayed runs counted as evidence: the dry run's and the shadow runs (distinct run ids). */
  runs: number;
  shadowRuns: number;
  /** Each changed step (added, changed, or the target of a changed edge) and how many runs ran it. */
  changedSteps: Array<{ stepId: string; exercised: number }>;
  /** Step ids unverified in at least one replayed run. */
  unverifiedSteps: string[];
}

/** Top-level step ids the change touches: added, changed, or reached by an added/changed edge. */
export function changedStepIds(diff: DefinitionDiff): string[] {
  const ids = new Set<string>();
  for (const s of diff.steps.added) ids.add(s.id);
  for (const s of diff.steps.changed) ids.add(s.id);
  for (const e of diff.edges.added) ids.add(e.to);
  for (const e of diff.edges.changed) ids.add(e.key.to);
  const removed = new Set(diff.steps.removed.map((s) => s.id));
  return [...ids].filter((id) => !removed.has(id)).sort();
}

export function computeVerification(args: {
  diff: DefinitionDiff;
  dryRun: {
    status: string;
    error: string | null;
    report: { runs: DryRunRunReport[] } | null;
  };
  shadowRuns: DryRunRunReport[];
}): Verification {
  const reasons: string[] = [];
  const evidence = new Map<string, DryRunRunReport>();
  for (const r of args.dryRun.report?.runs ?? []) if (r.steps) evidence.set(r.runId, r);
  let shadow = 0;
  for (const r of args.shadowRuns)
    if (r.steps && !evidence.has(r.runId)) {
      evidence.set(r.runId, r);
      shadow++;
    }
  const runs = [...evidence.values()];
  const changed = changedStepIds(args.diff).map((stepId) => ({
    stepId,
    exercised: runs.filter((r) =>
      r.steps!.some((s) => s.path === stepId && s.ran !== "original" && s.verdict !== "unverified"),
    ).length,
  }));
  const unverified = new Map<string, string>();
  for (const r of runs)
    for (const s of r.steps!)
      if (s.verdict === "unverified" && !unverified.has(s.path))
        unverified.set(s.path, s.reason ?? "no recording");

  const replayErrors = args.shadowRuns.filter((r) => r.replayError);
  const error = args.dryRun.status === "failed" || replayErrors.length > 0;
  if (args.dryRun.status === "failed")
    reasons.push(`The dry run failed: ${args.dryRun.error ?? "unknown error"}`);
  for (const r of replayErrors)
    reasons.push(`The shadow replay of run ${r.runId} failed: ${r.replayError}`);
  if (args.dryRun.status === "pending" || args.dryRun.status === "running")
    reasons.push("The dry run has not finished yet: evidence may still come");
  if (runs.length === 0)
    reasons.push("No run was replayed: the base version has no finished runs to replay yet");
  else
    reasons.push(
      `${runs.length} run${runs.length === 1 ? "" : "s"} replayed (${shadow} shadow run${shadow === 1 ? "" : "s"})`,
    );
  for (const c of changed)
    if (c.exercised === 0)
      reasons.push(`Changed step "${c.stepId}" was not exercised by any replayed run`);
  for (const [path, why] of unverified) reasons.push(`Step "${path}" is unverified: ${why}`);

  const level: VerificationLevel =
    runs.length === 0
      ? "unproven"
      : !error && unverified.size === 0 && changed.every((c) => c.exercised > 0)
        ? "verified"
        : "partial";
  if (level === "verified")
    reasons.push(
      changed.length
        ? `Every changed step (${changed.map((c) => c.stepId).join(", ")}) ran in a replayed run, with recorded side effects only`
        : "No step changed, and every replayed run was served from recordings",
    );
  return {
    level,
    reasons,
    runs: runs.length,
    shadowRuns: shadow,
    changedSteps: changed,
    unverifiedSteps: [...unverified.keys()],
  };
}
