import { describe, expect, it } from "vitest";
import { firstLine, mergeQueue } from "./queue-model";

const now = Date.parse("2026-11-24T12:00:00Z");
const at = (h: number) => new Date(now + h * 3_600_000);

describe("mergeQueue", () => {
  it("merges tasks and approvals sorted by due (own due date, else expiry), overdue flagged", () => {
    const items = mergeQueue(
      [
        {
          id: "task_b",
          runId: "r1",
          stepId: "review",
          instructions: "Review\nthe diff",
          workflowId: "wf_1",
          workflowName: "W",
          dueAt: at(-1),
          expiresAt: at(20),
        },
        {
          id: "task_a",
          runId: "r2",
          stepId: "label",
          instructions: "",
          workflowId: null,
          workflowName: "inline",
          dueAt: null,
          expiresAt: at(3),
        },
      ],
      [
        {
          id: "apr_1",
          runId: "r3",
          stepId: "ship",
          prompt: "Ship?",
          workflowId: "wf_1",
          workflowName: "W",
          expiresAt: at(2),
        },
        {
          id: "apr_0",
          runId: "r4",
          stepId: "later",
          prompt: "Later?",
          workflowId: null,
          expiresAt: null,
        },
      ],
      now,
    );
    expect(items.map((i) => [i.kind, i.id, i.isOverdue])).toEqual([
      ["task", "task_b", true],
      ["approval", "apr_1", false],
      ["task", "task_a", false],
      ["approval", "apr_0", false],
    ]);
    expect(items[0]!.title).toBe("Review");
    // No instructions: the step id names it; an expiry in the past is not "overdue" (no due date).
    expect(items[2]).toMatchObject({ title: "label", hasDueDate: false });
    // Rows of inline runs (no workflow) are labelled "Inline run"; saved ones by their name.
    expect(items.map((i) => i.workflowLabel)).toEqual(["W", "W", "Inline run", "Inline run"]);
  });

  it("cuts long first lines", () => {
    expect(firstLine("x".repeat(200), 10)).toBe("xxxxxxxxx…");
  });
});
