import { describe, expect, it } from "vitest";
import { filtersFromParams, filtersToParams, filtersToQuery, hasFilters } from "./runs-filters";

describe("runs filters in the URL", () => {
  it("round-trips and drops unknown values", () => {
    const p = new URLSearchParams(
      "workflow=wf_1&status=failed,bogus,waiting&trigger=manual&from=2026-01-02&to=nope&retrying=1&waiting=60",
    );
    const f = filtersFromParams(p);
    expect(f).toEqual({
      workflowId: "wf_1",
      status: ["failed", "waiting"],
      trigger: "manual",
      from: "2026-01-02",
      to: undefined,
      retrying: true,
      waitingMinutes: 60,
    });
    expect(filtersFromParams(filtersToParams(f))).toEqual(f);
    expect(hasFilters(f)).toBe(true);
    expect(hasFilters(filtersFromParams(new URLSearchParams("")))).toBe(false);
  });
  it("maps to the list query with whole local days", () => {
    const q = filtersToQuery(
      filtersFromParams(new URLSearchParams("from=2026-01-02&to=2026-01-03&waiting=5")),
    );
    expect(q.from).toEqual(new Date(2026, 0, 2));
    expect(q.to).toEqual(new Date(2026, 0, 3, 23, 59, 59, 999));
    expect(q.waitingLongerThanMinutes).toBe(5);
    expect(q.status).toBeUndefined();
  });
  it("tests=1 shows the editor's test runs too; without it they stay hidden", () => {
    const f = filtersFromParams(new URLSearchParams("tests=1"));
    expect(f.tests).toBe(true);
    expect(filtersToParams(f).get("tests")).toBe("1");
    expect(hasFilters(f)).toBe(true);
    expect(filtersToQuery(f).tests).toBe("include");
    expect(filtersToQuery(filtersFromParams(new URLSearchParams(""))).tests).toBeUndefined();
  });
  it("workflow=inline asks for inline runs only", () => {
    const q = filtersToQuery(filtersFromParams(new URLSearchParams("workflow=inline")));
    expect(q.inline).toBe(true);
    expect(q.workflowId).toBeUndefined();
  });
});
