import { describe, expect, it } from "vitest";
import {
  auditFiltersFromParams,
  auditFiltersToParams,
  auditFiltersToQuery,
  hasAuditFilters,
} from "./audit-filters";

describe("audit filters in the URL", () => {
  it("round-trips and drops unknown or malformed values", () => {
    const f = auditFiltersFromParams(
      new URLSearchParams(
        "actorType=robot&actor=usr_1&action=secret.*&target=API_KEY&targetType=secret&from=2026-01-02&to=nope",
      ),
    );
    expect(f).toEqual({
      actorId: "usr_1",
      action: "secret.*",
      targetId: "API_KEY",
      targetType: "secret",
      from: "2026-01-02",
    });
    expect(auditFiltersFromParams(auditFiltersToParams(f))).toEqual(f);
    expect(hasAuditFilters(f)).toBe(true);
    expect(hasAuditFilters(auditFiltersFromParams(new URLSearchParams("")))).toBe(false);
  });

  it("turns local days into an inclusive range", () => {
    const q = auditFiltersToQuery({ from: "2026-03-01", to: "2026-03-01", actorType: "token" });
    expect(q).toMatchObject({ actorType: "token", limit: 50 });
    expect((q.to as Date).getTime() - (q.from as Date).getTime()).toBe(86_400_000 - 1);
  });
});
