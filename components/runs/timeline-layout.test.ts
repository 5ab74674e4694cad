import { describe, expect, it } from "vitest";
import { barLabel, layoutTimeline, type TimelineAttempt } from "./timeline-layout";

const T0 = Date.parse("2026-11-28T08:00:00Z");
const at = (s: number) => new Date(T0 + s * 1000);
const attempt = (
  path: string,
  n: number,
  status: string,
  started: number,
  finished: number | null,
): TimelineAttempt => ({
  id: `${path}-${n}`,
  path,
  stepId: path,
  stepType: "http",
  attempt: n,
  status,
  createdAt: at(started),
  startedAt: at(started),
  finishedAt: finished === null ? null : at(finished),
});

describe("layoutTimeline", () => {
  /*
   *  run start 0s
   *  prep   [0──2]
   *  call        ·wait·[3─4 failed]·backoff·[6──10 completed]
   *  time   0    2     3   4               6       10
   */
  it("draws one bar per attempt, a retry as its own segment, queue wait derived from upstream and the previous attempt", () => {
    const t = layoutTimeline({
      attempts: [
        attempt("prep", 1, "completed", 0, 2),
        attempt("call", 1, "failed", 3, 4),
        attempt("call", 2, "completed", 6, 10),
      ],
      edges: [{ from: "prep", to: "call" }],
      runStartedAt: at(0),
      now: null,
    });
    expect(t.rows.map((r) => [r.path, r.bars.length])).toEqual([
      ["prep", 1],
      ["call", 2],
    ]);
    const [first, retry] = t.rows[1]!.bars;
    expect(first).toMatchObject({ readyFrom: "upstream", queueMs: 1000, durationMs: 1000 });
    expect(first!.queueLeft).toBeCloseTo(20);
    expect(first!.left).toBeCloseTo(30);
    expect(first!.width).toBeCloseTo(10);
    expect(retry).toMatchObject({ readyFrom: "previous attempt", queueMs: 2000, durationMs: 4000 });
    expect(retry!.left + retry!.width).toBeCloseTo(100);
    expect(t.rows[0]!.bars[0]).toMatchObject({ readyFrom: "run start", queueMs: 0, left: 0 });
    expect(t.ticks.at(-1)).toEqual({ at: 100, offsetMs: 10_000 });
    expect(barLabel(retry!)).toBe("call attempt 2: completed");
  });

  /*
   *  run start 0s, now 8s
   *  ask    [1 ── waiting ── now]
   */
  it("runs an unfinished attempt to now while the run is live, and waits for the first step from the run start", () => {
    const t = layoutTimeline({
      attempts: [attempt("ask", 1, "waiting", 1, null)],
      runStartedAt: at(0),
      now: T0 + 8000,
    });
    const bar = t.rows[0]!.bars[0]!;
    expect(bar).toMatchObject({ isRunning: true, queueMs: 1000, durationMs: 7000 });
    expect(bar.left + bar.width).toBeCloseTo(100);
    expect(barLabel(bar)).toBe("ask attempt 1: waiting (so far)");
  });

  it("is empty before any step started", () => {
    expect(layoutTimeline({ attempts: [], runStartedAt: null, now: null }).rows).toEqual([]);
  });
});
