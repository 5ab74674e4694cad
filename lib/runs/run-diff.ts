import { diffJson, type JsonDiff } from "../json-diff";

/**
 * Step-by-step comparison of two runs (any versions of any workflows): per step path, status,
 * duration, input and output (JSON diffs), and the path taken — steps that ran in one run only,
 * a different branch port, loop iteration counts. Pure: the service loads the rows.
 */

/** What the comparison reads of a step attempt row. */
export interface RunDiffStepRow {
  path: string;
  stepId: string;
  stepType: string;
  attempt: number;
  status: string;
  input: unknown;
  output: unknown;
  error: unknown;
  port: string | null;
  skipReason: string | null;
  startedAt: Date | null;
  finishedAt: Date | null;
}

/** One side of a step: its last attempt, summarised. */
export interface RunDiffStepSide {
  type: string;
  status: string;
  attempts: number;
  durationMs: number | null;
  port: string | null;
  skipReason: string | null;
  error: unknown;
}

export type StepVerdict =
  /** Ran in both with the same status, port, input and output. */
  | "same"
  /** Ran in both; status, port, input or output differ. */
  | "different"
  | "only_a"
  | "only_b";

export interface RunDiffStep {
  /** `stepId`, or `loop[3].body` for a loop iteration. */
  path: string;
  stepId: string;
  /** True for a loop iteration (its path names the iteration). */
  isIteration: boolean;
  verdict: StepVerdict;
  a: RunDiffStepSide | null;
  b: RunDiffStepSide | null;
  statusChanged: boolean;
  /** A different branch port, or ran in one and skipped in the other. */
  pathChanged: boolean;
  /** b − a, when both have a duration. */
  durationDeltaMs: number | null;
  input: JsonDiff | null;
  /** Diff of the step's result (`output.data`); paths start inside it. */
  output: JsonDiff | null;
}

export interface RunDiffLoop {
  stepId: string;
  iterationsA: number;
  iterationsB: number;
}

export interface RunStepsDiff {
  steps: RunDiffStep[];
  summary: {
    same: number;
    different: number;
    onlyA: number;
    onlyB: number;
    /** Paths (top-level steps) that ran in A only / in B only: the path taken differs. */
    onlyInA: string[];
    onlyInB: string[];
    /** Steps whose branch port or skipped/ran state differs. */
    branchChanged: string[];
    loops: RunDiffLoop[];
    /** True when the two runs took a different path through the graph. */
    pathsDiffer: boolean;
  };
}

export interface RunDiffCaps {
  maxChanges: number;
  maxValueChars: number;
}

/** Per-step diff caps: a step's diff never carries more than this, whatever its output's size. */
export const RUN_DIFF_CAPS: RunDiffCaps = { maxChanges: 50, maxValueChars: 1_000 };

function durationOf(r: RunDiffStepRow): number | null {
  return r.startedAt && r.finishedAt ? r.finishedAt.getTime() - r.startedAt.getTime() : null;
}

/** The last attempt per path and the count of attempts, in first-seen order. */
function lastAttempts(rows: readonly RunDiffStepRow[]) {
  const byPath = new Map<string, { last: RunDiffStepRow; attempts: number }>();
  for (const r of rows) {
    const seen = byPath.get(r.path);
    if (!seen) byPath.set(r.path, { last: r, attempts: 1 });
    else {
      seen.attempts += 1;
      if (r.attempt >= seen.last.attempt) seen.last = r;
    }
  }
  return byPath;
}

function side(e: { last: RunDiffStepRow; attempts: number }): RunDiffStepSide {
  const r = e.last;
  return {
    type: r.stepType,
    status: r.status,
    attempts: e.attempts,
    durationMs: durationOf(r),
    port: r.port,
    skipReason: r.skipReason,
    error: r.error ?? null,
  };
}

/**
 * What a step produced for the steps after it: `output.data` of the `{ data, meta }` envelope.
 * `meta` holds execution details (durationMs, response timings) that differ on every run and
 * would make every step "different"; the duration is compared on its own.
 */
function resultOf(output: unknown): unknown {
  return output !== null && typeof output === "object" && !Array.isArray(output) && "data" in output
    ? (output as { data: unknown }).data
    : output;
}

const ran = (s: RunDiffStepSide) => s.status !== "skipped";

/** Loop iteration paths look like `each[3].shape`: the loop step id is before the first `[`. */
function iterationOf(path: string): { loopId: string; index: number } | null {
  const m = /^([^[]+)\[(\d+)\]/.exec(path);
  return m ? { loopId: m[1]!, index: Number(m[2]) } : null;
}

function loopCounts(paths: Iterable<string>): Map<string, number> {
  const max = new Map<string, number>();
  for (const p of paths) {
    const it = iterationOf(p);
    if (it) max.set(it.loopId, Math.max(max.get(it.loopId) ?? 0, it.index + 1));
  }
  return max;
}

/**
 * Compares run A's step rows with run B's (every attempt, loop iterations included). Steps are
 * listed in A's order, then B's additions in B's order.
 */
export function diffRunSteps(
  aRows: readonly RunDiffStepRow[],
  bRows: readonly RunDiffStepRow[],
  caps: RunDiffCaps = RUN_DIFF_CAPS,
): RunStepsDiff {
  const a = lastAttempts(aRows);
  const b = lastAttempts(bRows);
  const paths = [...a.keys(), ...[...b.keys()].filter((p) => !a.has(p))];
  const steps: RunDiffStep[] = paths.map((path) => {
    const ea = a.get(path);
    const eb = b.get(path);
    const stepId = (ea ?? eb)!.last.stepId;
    const isIteration = iterationOf(path) !== null;
    const sa = ea ? side(ea) : null;
    const sb = eb ? side(eb) : null;
    if (!sa || !sb) {
      return {
        path,
        stepId,
        isIteration,
        verdict: sa ? "only_a" : "only_b",
        a: sa,
        b: sb,
        statusChanged: false,
        pathChanged: true,
        durationDeltaMs: null,
        input: null,
        output: null,
      };
    }
    const input = diffJson(ea!.last.input, eb!.last.input, caps);
    const output = diffJson(resultOf(ea!.last.output), resultOf(eb!.last.output), caps);
    const statusChanged = sa.status !== sb.status;
    const pathChanged = ran(sa) !== ran(sb) || (sa.port ?? null) !== (sb.port ?? null);
    const same = !statusChanged && !pathChanged && input.equal && output.equal;
    return {
      path,
      stepId,
      isIteration,
      verdict: same ? "same" : "different",
      a: sa,
      b: sb,
      statusChanged,
      pathChanged,
      durationDeltaMs:
        sa.durationMs !== null && sb.durationMs !== null ? sb.durationMs - sa.durationMs : null,
      input,
      output,
    };
  });
  const top = (s: RunDiffStep) => !s.isIteration;
  const la = loopCounts(a.keys());
  const lb = loopCounts(b.keys());
  const loops = [...new Set([...la.keys(), ...lb.keys()])].map((stepId) => ({
    stepId,
    iterationsA: la.get(stepId) ?? 0,
    iterationsB: lb.get(stepId) ?? 0,
  }));
  const onlyInA = steps.filter((s) => top(s) && s.verdict === "only_a").map((s) => s.path);
  const onlyInB = steps.filter((s) => top(s) && s.verdict === "only_b").map((s) => s.path);
  const branchChanged = steps
    .filter((s) => top(s) && s.a && s.b && s.pathChanged)
    .map((s) => s.path);
  const count = (v: StepVerdict) => steps.filter((s) => s.verdict === v).length;
  return {
    steps,
    summary: {
      same: count("same"),
      different: count("different"),
      onlyA: count("only_a"),
      onlyB: count("only_b"),
      onlyInA,
      onlyInB,
      branchChanged,
      loops,
      pathsDiffer:
        onlyInA.length > 0 ||
        onlyInB.length > 0 ||
        branchChanged.length > 0 ||
        loops.some((l) => l.iterationsA !== l.iterationsB),
    },
  };
}
