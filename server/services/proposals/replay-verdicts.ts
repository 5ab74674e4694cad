/**
 * Per-step verdicts of a proposal replay (issue #29 item 1): each step either side executed is
 * `same`, `different_output` (with a JSON diff), `different_path` (only one side ran it) or
 * `unverified` (a side effect with no recording to serve, or an outcome that is a guess); the run
 * as a whole is `same_outcome`, `different_outcome` or `cannot_tell`.
 */
import microdiff from "microdiff";
import { deepEqual, type JsonValue } from "@/lib/workflow";
import type {
  JsonChange,
  RecordedReplay,
  RecordedRun,
  RecordedStep,
  ReplayOutcome,
  ReplayStepReport,
} from "@/lib/workflow/dry-run-types";

/** A diff longer than this is cut (the review screen shows the first changes, then "…"). */
export const MAX_DIFF_CHANGES = 50;

/** A JSON diff of two values (any JSON, not only objects), at most MAX_DIFF_CHANGES entries. */
export function jsonDiff(before: unknown, after: unknown): JsonChange[] {
  const changes = microdiff({ v: before ?? null }, { v: after ?? null });
  return changes.slice(0, MAX_DIFF_CHANGES).map((c): JsonChange => {
    const path = c.path.slice(1);
    if (c.type === "CREATE") return { op: "added", path, after: c.value as JsonValue };
    if (c.type === "REMOVE") return { op: "removed", path, before: c.oldValue as JsonValue };
    return {
      op: "changed",
      path,
      before: c.oldValue as JsonValue,
      after: c.value as JsonValue,
    };
  });
}

/** What a step's output means for the comparison: its port and `data` (meta holds timings). */
function observed(status: string, port: string | null | undefined, output: unknown) {
  const data =
    output && typeof output === "object" && !Array.isArray(output) && "data" in output
      ? (output as { data: unknown }).data
      : output;
  return { status, port: port ?? null, output: (data ?? null) as JsonValue };
}

export function compareReplay(
  run: RecordedRun,
  log: RecordedReplay,
  end: { status: string; output: unknown },
): { steps: ReplayStepReport[]; outcome: ReplayOutcome } {
  const recorded = new Map<string, RecordedStep>();
  for (const s of run.steps)
    if (s.status === "completed" || s.status === "failed") recorded.set(s.path, s);
  const steps: ReplayStepReport[] = [];
  for (const [path, outcome] of log.executed) {
    if (outcome?.kind !== "completed" && outcome?.kind !== "failed") continue;
    const rec = recorded.get(path);
    const stepId = path.slice(path.lastIndexOf(".") + 1);
    const stepType = log.types.get(path) ?? rec?.stepType ?? "unknown";
    const base = {
      path,
      stepId: rec?.stepId ?? stepId,
      stepType,
      ran: rec ? ("both" as const) : ("proposal" as const),
    };
    const un = log.unverified.get(path);
    const inner =
      outcome.kind === "failed"
        ? [...log.unverified.keys()].find((p) => p.startsWith(`${path}[`))
        : undefined;
    if (inner) {
      steps.push({
        ...base,
        verdict: "unverified",
        reason: `It failed because "${inner}" inside it is unverified`,
      });
    } else if (un) {
      const diff = "after" in un ? jsonDiff(un.before, un.after) : undefined;
      steps.push({ ...base, verdict: "unverified", reason: un.reason, ...(diff ? { diff } : {}) });
    } else if (log.notComparable.has(path)) {
      steps.push({
        ...base,
        verdict: "unverified",
        reason: rec
          ? "Its outcome is the recorded one, not recomputed (it reads a secret)"
          : "The original run has no outcome for it (assumed to succeed with a null output)",
      });
    } else if (!rec) {
      steps.push({
        ...base,
        verdict: "different_path",
        reason: "Runs under the proposal; the original run did not run it",
      });
    } else {
      const before = observed(rec.status, rec.port, rec.output);
      const after =
        outcome.kind === "completed"
          ? observed("completed", outcome.port ?? rec.port, outcome.output)
          : observed("failed", null, null);
      const diff = deepEqual(before, after) ? [] : jsonDiff(before, after);
      steps.push(
        diff.length > 0
          ? { ...base, verdict: "different_output", diff }
          : { ...base, verdict: "same" },
      );
    }
  }
  const seen = new Set(steps.map((s) => s.path));
  for (const rec of recorded.values()) {
    if (seen.has(rec.path)) continue;
    steps.push({
      path: rec.path,
      stepId: rec.stepId,
      stepType: rec.stepType,
      ran: "original",
      verdict: "different_path",
      reason: "The original run ran it; under the proposal it does not run",
    });
  }
  const outputSame = deepEqual(run.output ?? null, (end.output ?? null) as JsonValue);
  const outcome: ReplayOutcome =
    recorded.size === 0 || steps.some((s) => s.verdict === "unverified")
      ? "cannot_tell"
      : end.status !== run.status || !outputSame
        ? "different_outcome"
        : "same_outcome";
  return { steps, outcome };
}
