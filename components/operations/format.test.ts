import { describe, expect, it } from "vitest";
import { duration, hourLabel, percent } from "./format";

describe("operations format", () => {
  it("percent", () => {
    expect(percent(0.25, 8)).toBe("25%");
    expect(percent(1 / 3, 3)).toBe("33.3%");
    expect(percent(0, 0)).toBe("—");
  });
  it("duration", () => {
    expect(duration(null)).toBe("—");
    expect(duration(850)).toBe("850 ms");
    expect(duration(3000)).toBe("3 s");
    expect(duration(8800)).toBe("8.8 s");
    expect(duration(245_000)).toBe("4 min 5 s");
    expect(duration(7_800_000)).toBe("2 h 10 min");
  });
  it("hourLabel", () => {
    expect(hourLabel("2026-03-10T14:00:00.000Z", "24h")).toBe("14:00");
    expect(hourLabel("2026-03-10T00:00:00.000Z", "7d")).toBe("Mar 10");
  });
});
