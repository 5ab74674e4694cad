import { describe, expect, it } from "vitest";
import { createHistory } from "./history";

describe("createHistory", () => {
  it("undoes and redoes; a new push clears the redo stack", () => {
    let h = createHistory("a").push("b").push("c");
    expect([h.present, h.canUndo, h.canRedo]).toEqual(["c", true, false]);
    h = h.undo().undo();
    expect([h.present, h.canUndo, h.canRedo]).toEqual(["a", false, true]);
    expect(h.undo()).toBe(h);
    h = h.redo();
    expect(h.present).toBe("b");
    h = h.push("x");
    expect([h.past, h.present, h.future]).toEqual([["a", "b"], "x", []]);
    expect(h.redo()).toBe(h);
  });

  it("ignores a push equal to the present", () => {
    const h = createHistory({ n: 1 }, { equals: (a, b) => a.n === b.n });
    expect(h.push({ n: 1 })).toBe(h);
  });

  it("coalesces rapid edits of the same field into one undo step", () => {
    let h = createHistory("", { coalesceMs: 500 });
    h = h
      .push("h", { key: "url", at: 1000 })
      .push("ht", { key: "url", at: 1300 })
      .push("htt", { key: "url", at: 1700 });
    expect([h.past, h.present]).toEqual([[""], "htt"]);
    h = h.push("http", { key: "url", at: 2300 }); // 600 ms later: a new entry
    expect(h.past).toEqual(["", "htt"]);
    h = h.push("x", { key: "name", at: 2400 }); // another field: a new entry
    expect(h.past).toEqual(["", "htt", "http"]);
    h = h.push("y", { at: 2450 }).push("z", { at: 2460 }); // no key: never coalesced
    expect(h.past).toHaveLength(5);
  });

  it("does not coalesce across an undo", () => {
    let h = createHistory("a").push("b", { key: "k", at: 0 }).push("c", { key: "k", at: 10 });
    h = h.undo().push("d", { key: "k", at: 20 });
    expect([h.past, h.present]).toEqual([["a"], "d"]);
  });

  it("caps the undo entries, dropping the oldest", () => {
    let h = createHistory(0, { limit: 3 });
    for (let i = 1; i <= 10; i++) h = h.push(i);
    expect([h.past, h.present]).toEqual([[7, 8, 9], 10]);
    h = h.undo().undo().undo();
    expect([h.present, h.canUndo]).toEqual([7, false]);
    expect(() => createHistory(0, { limit: 0 })).toThrow(RangeError);
  });

  it("reset starts over without entries", () => {
    const h = createHistory("a").push("b").reset("z");
    expect([h.present, h.canUndo, h.canRedo]).toEqual(["z", false, false]);
  });

  it("replaces the present without an undo entry (viewport changes)", () => {
    let h = createHistory("a").push("b").undo();
    h = h.replace("a+viewport");
    expect([h.past, h.present, h.future]).toEqual([[], "a+viewport", ["b"]]);
    expect(h.replace("a+viewport")).toBe(h);
    expect(h.redo().undo().present).toBe("a+viewport");
  });
});
