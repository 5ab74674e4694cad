import { describe, expect, it } from "vitest";
import {
  DurationError,
  formatDuration,
  isDurationString,
  MAX_DURATION_MS,
  parseDuration,
  tryParseDuration,
} from "./duration";

describe("parseDuration", () => {
  it.each([
    ["30s", 30_000],
    ["10m", 600_000],
    ["1h30m", 5_400_000],
    ["2d", 172_800_000],
    ["1w", 604_800_000],
    ["1w2d3h4m5s6ms", 604_800_000 + 2 * 86_400_000 + 3 * 3_600_000 + 4 * 60_000 + 5_000 + 6],
    ["500ms", 500],
    [" 5m ", 300_000],
    ["0s", 0],
  ])("%s → %d ms", (text, ms) => {
    expect(parseDuration(text)).toBe(ms);
  });

  it("accepts plain non-negative integer milliseconds", () => {
    expect(parseDuration(1500)).toBe(1500);
    expect(tryParseDuration(-1).ok).toBe(false);
    expect(tryParseDuration(1.5).ok).toBe(false);
    expect(tryParseDuration(Number.NaN).ok).toBe(false);
  });

  it.each([
    ["", /cannot be empty/],
    ["10", /no unit.*"10ms"/],
    ["10x", /Invalid duration "10x"/],
    ["1.5h", /Invalid duration/],
    ["30m1h", /largest first/],
    ["1h1h", /once each/],
    ["-5m", /Invalid duration/],
    ["1 h", /Invalid duration/],
    ["367d", /maximum of 366d/],
    ["x".repeat(100), /at most 64/],
  ])("rejects %j with a clear message", (text, message) => {
    const result = tryParseDuration(text);
    expect(result.ok).toBe(false);
    if (!result.ok) expect(result.error).toMatch(message);
  });

  it("rejects non-strings and non-numbers", () => {
    expect(tryParseDuration(null)).toEqual({ ok: false, error: expect.stringMatching(/got null/) });
    expect(tryParseDuration({})).toEqual({ ok: false, error: expect.stringMatching(/got object/) });
    expect(() => parseDuration("nope")).toThrow(DurationError);
  });

  it("isDurationString only accepts unit strings", () => {
    expect(isDurationString("24h")).toBe(true);
    expect(isDurationString("24")).toBe(false);
    expect(isDurationString(24)).toBe(false);
  });
});

describe("formatDuration", () => {
  it.each([
    [0, "0s"],
    [500, "500ms"],
    [1_500, "1s500ms"],
    [5_400_000, "1h30m"],
    [86_400_000, "1d"],
    [694_800_000, "1w1d1h"],
  ])("%d ms → %s", (ms, text) => {
    expect(formatDuration(ms)).toBe(text);
  });

  it("round-trips through parseDuration", () => {
    for (const ms of [1, 999, 60_000, 3_723_004, MAX_DURATION_MS])
      expect(parseDuration(formatDuration(ms))).toBe(ms);
  });

  it("refuses negative or fractional input", () => {
    expect(() => formatDuration(-1)).toThrow(DurationError);
    expect(() => formatDuration(0.5)).toThrow(DurationError);
  });
});
