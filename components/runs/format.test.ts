import { describe, expect, it } from "vitest";
import {
  attemptDuration,
  conditionChecksOf,
  errorMessage,
  firstFailedStep,
  formatCheck,
  formatDuration,
  isActiveRun,
  jsonPreview,
  runDuration,
} from "./format";

describe("run formatting", () => {
  it("formats durations", () => {
    expect(formatDuration(null)).toBe("—");
    expect(formatDuration(850)).toBe("850 ms");
    expect(formatDuration(1234)).toBe("1.2 s");
    expect(formatDuration(42_000)).toBe("42 s");
    expect(formatDuration(245_000)).toBe("4 min 5 s");
    expect(formatDuration(2 * 3_600_000 + 180_000)).toBe("2 h 3 min");
  });
  it("measures runs to now while active", () => {
    const createdAt = new Date(1_000);
    expect(
      runDuration({ createdAt, startedAt: new Date(2_000), finishedAt: new Date(5_000) }),
    ).toBe(3_000);
    expect(runDuration({ createdAt, startedAt: null, finishedAt: null }, 4_000)).toBe(3_000);
  });
  it("truncates big payloads and keeps the full size", () => {
    const big = { data: "x".repeat(10_000) };
    const p = jsonPreview(big, 100);
    expect(p.truncated).toBe(true);
    expect(p.text.length).toBeLessThan(110);
    expect(p.size).toBeGreaterThan(10_000);
    expect(jsonPreview({ a: 1 }).truncated).toBe(false);
  });
  it("reads error messages and activity", () => {
    expect(errorMessage({ message: "boom", code: "x" })).toBe("boom");
    expect(errorMessage(null)).toBeNull();
    expect(isActiveRun("waiting")).toBe(true);
    expect(isActiveRun("completed")).toBe(false);
  });
});

describe("attemptDuration", () => {
  const started = "2026-01-01T00:00:00.000Z";
  const t0 = Date.parse(started);

  it("grows with now while a step runs or waits, and is the recorded one once it ended", () => {
    const waiting = { status: "waiting", durationMs: null, startedAt: started };
    expect(attemptDuration(waiting, t0 + 5_000)).toBe(5_000);
    expect(attemptDuration(waiting, t0 + 65_000)).toBe(65_000);
    expect(attemptDuration({ ...waiting, status: "running" }, t0 + 1_000)).toBe(1_000);
    expect(attemptDuration({ ...waiting, status: "completed", durationMs: 42 }, t0 + 9e9)).toBe(42);
  });

  it("is unknown before hydration, before the start, or for a step that never ran", () => {
    expect(attemptDuration({ status: "waiting", durationMs: null, startedAt: started }, null)).toBe(
      null,
    );
    expect(attemptDuration({ status: "pending", durationMs: null, startedAt: null }, t0)).toBe(
      null,
    );
    expect(attemptDuration({ status: "skipped", durationMs: null, startedAt: started }, t0)).toBe(
      null,
    );
  });
});

describe("firstFailedStep (the rerun dialog's preselected step)", () => {
  const a = (path: string, status: string) => ({ path, stepId: path.split(".").pop()!, status });
  const ids = ["fetch", "charge", "each", "done"];

  it("picks the first step in run order whose latest attempt failed, not the last step", () => {
    expect(
      firstFailedStep(ids, [
        a("fetch", "completed"),
        a("charge", "failed"),
        a("each", "failed"),
        a("done", "completed"),
      ]),
    ).toBe("charge");
  });

  it("skips a step whose retry succeeded, maps a body step to its loop, and is null without failures", () => {
    expect(
      firstFailedStep(ids, [
        a("fetch", "failed"),
        a("fetch", "completed"),
        a("each[1].inner", "failed"),
        a("done", "completed"),
      ]),
    ).toBe("each");
    expect(firstFailedStep(ids, [a("fetch", "completed"), a("done", "completed")])).toBeNull();
  });
});

describe("condition checks on the run page", () => {
  it("reads meta.checks and formats each comparison with its operands", () => {
    const checks = conditionChecksOf({
      data: true,
      meta: {
        checks: [
          { ref: "input.amount", op: "gt", actual: "250", expected: "100", result: true },
          { ref: "input.ok", op: "truthy", actual: "missing", result: false },
          { bogus: 1 },
        ],
      },
    });
    expect(checks?.map(formatCheck)).toEqual([
      "input.amount: 250 > 100 → true",
      "input.ok: missing is truthy → false",
    ]);
    expect(conditionChecksOf({ data: 1, meta: {} })).toBeNull();
    expect(conditionChecksOf(null)).toBeNull();
  });
});
