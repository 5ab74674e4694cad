import { describe, expect, it } from "vitest";
import { ACTIONS, buildGroups, matchActions, noMatchMessage } from "./palette-items";

const results = {
  workflows: [{ id: "wf_1", name: "Invoice sync", slug: "invoice-sync" }],
  runs: [{ id: "run_01abc", status: "completed", workflowName: "Invoice sync" }],
};

describe("matchActions", () => {
  it("lists every action for an empty query, in catalog order", () => {
    expect(matchActions("  ").map((a) => a.key)).toEqual(ACTIONS.map((a) => a.key));
  });

  it("matches every word against label and keywords, label-word prefixes first", () => {
    // "review" is a keyword of approvals and proposals; "pro" starts a label word only in proposals.
    expect(matchActions("review").map((a) => a.key)).toEqual(["approvals", "proposals"]);
    expect(matchActions("create").map((a) => a.key)).toEqual(["new-workflow"]);
    expect(matchActions("go sett").map((a) => a.key)).toEqual(["settings"]);
    expect(matchActions("out").map((a) => a.key)).toEqual(["sign-out"]);
    // "s" starts "settings" and "sign" (rank 0) and only appears inside "runs" etc. (rank 1).
    const s = matchActions("s").map((a) => a.key);
    expect(s.indexOf("settings")).toBeLessThan(s.indexOf("runs"));
    expect(matchActions("zzz")).toEqual([]);
  });
});

describe("buildGroups", () => {
  it("puts workflows, then runs, then matching actions, with links to each", () => {
    const groups = buildGroups("invoice", results);
    expect(groups.map((g) => g.heading)).toEqual(["Workflows", "Runs"]);
    expect(groups[0]!.items[0]).toMatchObject({ href: "/workflows/wf_1", label: "Invoice sync" });
    expect(groups[1]!.items[0]).toMatchObject({ href: "/runs/run_01abc" });
  });

  it("shows only actions when the query is empty or the results have not arrived", () => {
    expect(buildGroups("", results).map((g) => g.heading)).toEqual(["Actions"]);
    expect(buildGroups("runs", undefined).map((g) => g.heading)).toEqual(["Actions"]);
  });

  it("leaves out empty groups and keeps matching actions after no results", () => {
    const groups = buildGroups("settings", { workflows: [], runs: [] });
    expect(groups.map((g) => g.heading)).toEqual(["Actions"]);
    expect(groups[0]!.items).toEqual([
      { key: "settings", label: "Go to settings", href: "/settings" },
    ]);
  });
});

it("names the query in the no-match line", () => {
  expect(noMatchMessage(" xyz ")).toBe('No workflows or runs match "xyz"');
});
