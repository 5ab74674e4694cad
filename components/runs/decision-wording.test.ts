import { describe, expect, it } from "vitest";
import {
  approvalDecisionWords,
  closedGateWords,
  decisionSentence,
  taskWords,
} from "./decision-wording";

const now = Date.parse("2026-11-28T08:03:00Z");
const threeMinutesAgo = new Date(now - 3 * 60_000);

describe("decision wording", () => {
  it("says who approved, when and why", () => {
    const w = approvalDecisionWords({
      decision: "approved",
      reason: " looks fine ",
      byName: "Bob Smith",
    });
    expect(decisionSentence(w, threeMinutesAgo, now)).toBe(
      "Approved by Bob Smith 3 minutes ago — “looks fine”",
    );
  });

  it("names no id for someone who left; no reason, no dash", () => {
    const w = approvalDecisionWords({ decision: "rejected", reason: "", byName: null });
    expect(decisionSentence(w, threeMinutesAgo, now)).toBe(
      "Rejected by a former member 3 minutes ago",
    );
  });

  it("words a gate that closed without a decision, and finished tasks", () => {
    expect(closedGateWords("expired", "approval_timeout")?.verb).toBe("Expired without a decision");
    expect(closedGateWords("approved", null)).toBeNull();
    expect(
      decisionSentence(
        taskWords({ status: "failed", byName: "Ann", reason: "no stock" }),
        threeMinutesAgo,
        now,
      ),
    ).toBe("Failed by Ann 3 minutes ago — “no stock”");
    expect(taskWords({ status: "completed", byName: "Ann", reason: null }).verb).toBe(
      "Completed by",
    );
  });
});
