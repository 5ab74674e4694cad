import { describe, expect, it } from "vitest";
import { authorText, riskRuleOf, sortProposals, statusesOf, stepIdsOf } from "./proposal-format";

describe("sortProposals", () => {
  it("puts pending first, then approved, newest first within a status", () => {
    const at = (d: number) => new Date(Date.UTC(2026, 0, d));
    const items = [
      { id: "a", status: "applied" as const, createdAt: at(9) },
      { id: "b", status: "pending" as const, createdAt: at(1) },
      { id: "c", status: "approved" as const, createdAt: at(5) },
      { id: "d", status: "pending" as const, createdAt: at(3) },
    ];
    expect(sortProposals(items).map((i) => i.id)).toEqual(["d", "b", "c", "a"]);
  });
});

describe("statusesOf", () => {
  it("maps the filter to the list input", () => {
    expect(statusesOf("open")).toEqual(["pending", "approved"]);
    expect(statusesOf("all")).toBeUndefined();
    expect(statusesOf("rejected")).toEqual(["rejected"]);
  });
});

describe("text helpers", () => {
  it("names the author's kind unless it is a person", () => {
    expect(authorText({ type: "user", name: "Ada" })).toBe("Ada");
    expect(authorText({ type: "token", name: "ci" })).toBe("ci (API token)");
  });

  it("reads rule/code and stepId/stepIds", () => {
    expect(riskRuleOf({ rule: "script_step" })).toBe("script_step");
    expect(riskRuleOf({ code: "new_secret" })).toBe("new_secret");
    expect(riskRuleOf({})).toBeNull();
    expect(stepIdsOf({ stepId: "a" })).toEqual(["a"]);
    expect(stepIdsOf({ stepIds: ["a", "b"] })).toEqual(["a", "b"]);
    expect(stepIdsOf({})).toEqual([]);
  });
});
