import { describe, expect, it } from "vitest";
import { resetLabel, utcDayLabel } from "./quota-format";

describe("quota reset labels", () => {
  const at = new Date("2026-12-01T00:00:00Z");
  it("words the reset relative to now with the UTC date, never an ISO string", () => {
    const now = Date.parse("2026-11-28T00:00:00Z");
    expect(resetLabel(at, now)).toBe("Resets in 3 days, on 1 Dec 2026 00:00 UTC");
    expect(resetLabel(at, now)).not.toMatch(/\d{4}-\d{2}-\d{2}T/);
  });
  it("shows only the date before the clock is known", () => {
    expect(resetLabel(at, null)).toBe("Resets on 1 Dec 2026 00:00 UTC");
    expect(utcDayLabel(new Date("2027-01-09T13:05:00Z"))).toBe("9 Jan 2027 13:05 UTC");
  });
});
