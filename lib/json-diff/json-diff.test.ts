import { describe, expect, it } from "vitest";
import { diffJson, formatJsonPath } from "./index";

describe("diffJson", () => {
  it("is equal for deep-equal values, whatever the key order", () => {
    const d = diffJson({ a: 1, b: [1, { c: "x" }] }, { b: [1, { c: "x" }], a: 1 });
    expect(d).toEqual({ equal: true, changes: [], totalChanges: 0, truncated: false });
  });

  it("lists added, removed and changed leaves with their paths", () => {
    const d = diffJson(
      { a: 1, gone: true, list: [1, 2] },
      { a: 2, list: [1, 2, 3], "new key": null },
    );
    expect(d.equal).toBe(false);
    expect(d.changes).toEqual([
      { kind: "changed", path: ["a"], where: "$.a", before: 1, after: 2, clipped: false },
      { kind: "removed", path: ["gone"], where: "$.gone", before: true, clipped: false },
      { kind: "added", path: ["list", 2], where: "$.list[2]", after: 3, clipped: false },
      { kind: "added", path: ["new key"], where: '$["new key"]', after: null, clipped: false },
    ]);
  });

  it("diffs primitives and type changes at the root", () => {
    expect(diffJson(1, "1").changes).toEqual([
      { kind: "changed", path: [], where: "$", before: 1, after: "1", clipped: false },
    ]);
    expect(diffJson(undefined, { a: 1 }).changes[0]).toMatchObject({ kind: "added", path: [] });
    expect(diffJson({ a: 1 }, undefined).changes[0]).toMatchObject({ kind: "removed", path: [] });
    expect(diffJson([1], { 0: 1 }).changes[0]).toMatchObject({ kind: "changed", path: [] });
  });

  it("caps the number of changes and says how many there are", () => {
    const a = Object.fromEntries(Array.from({ length: 50 }, (_, i) => [`k${i}`, i]));
    const b = Object.fromEntries(Array.from({ length: 50 }, (_, i) => [`k${i}`, i + 1]));
    const d = diffJson(a, b, { maxChanges: 10 });
    expect(d.changes).toHaveLength(10);
    expect(d.totalChanges).toBe(50);
    expect(d.truncated).toBe(true);
  });

  it("clips large values to a preview so a 2 MB output never ships back whole", () => {
    const big = { rows: Array.from({ length: 20_000 }, (_, i) => ({ id: i, name: `row ${i}` })) };
    const d = diffJson({ rows: null }, big, { maxValueChars: 100 });
    expect(d.changes).toHaveLength(1);
    const change = d.changes[0]!;
    expect(change.clipped).toBe(true);
    expect(typeof change.after).toBe("string");
    expect((change.after as string).length).toBeLessThanOrEqual(100);
    expect(diffJson("x".repeat(500), "y", { maxValueChars: 50 }).changes[0]!.clipped).toBe(true);
  });

  it("handles a 1–2 MB pair with a few changes", () => {
    const rows = Array.from({ length: 15_000 }, (_, i) => ({
      id: i,
      name: `row ${i}`,
      tags: ["a"],
    }));
    const a = { rows };
    const b = { rows: rows.map((r) => (r.id === 7_000 ? { ...r, name: "renamed" } : r)) };
    expect(JSON.stringify(a).length).toBeGreaterThan(500_000);
    const d = diffJson(a, b);
    expect(d.changes).toEqual([
      {
        kind: "changed",
        path: ["rows", 7000, "name"],
        where: "$.rows[7000].name",
        before: "row 7000",
        after: "renamed",
        clipped: false,
      },
    ]);
  });
});

describe("formatJsonPath", () => {
  it("quotes keys that are not identifiers", () => {
    expect(formatJsonPath([])).toBe("$");
    expect(formatJsonPath(["a", 0, "b-c", "$ok"])).toBe('$.a[0]["b-c"].$ok');
  });
});
