import { describe, expect, it } from "vitest";
import { canvasActionOf, isTextEntry, type KeyLike } from "./shortcuts";

const key = (k: string, mods: Partial<KeyLike> = {}): KeyLike => ({
  key: k,
  ctrlKey: false,
  metaKey: false,
  shiftKey: false,
  altKey: false,
  ...mods,
});

describe("canvasActionOf", () => {
  it("maps undo/redo on Ctrl and Cmd, Ctrl+Y included", () => {
    expect(canvasActionOf(key("z", { ctrlKey: true }))).toBe("undo");
    expect(canvasActionOf(key("z", { metaKey: true }))).toBe("undo");
    expect(canvasActionOf(key("Z", { metaKey: true, shiftKey: true }))).toBe("redo");
    expect(canvasActionOf(key("y", { ctrlKey: true }))).toBe("redo");
    expect(canvasActionOf(key("y", { metaKey: true }))).toBeNull();
  });

  it("maps duplicate, find, select all; leaves copy/cut/paste to the clipboard events", () => {
    expect(canvasActionOf(key("d", { ctrlKey: true }))).toBe("duplicate");
    expect(canvasActionOf(key("f", { metaKey: true }))).toBe("find");
    expect(canvasActionOf(key("a", { ctrlKey: true }))).toBe("selectAll");
    for (const k of ["c", "x", "v"]) expect(canvasActionOf(key(k, { ctrlKey: true }))).toBeNull();
  });

  it("maps plain keys: Delete/Backspace, C to connect, ? for help, Escape", () => {
    expect(canvasActionOf(key("Delete"))).toBe("delete");
    expect(canvasActionOf(key("Backspace"))).toBe("delete");
    expect(canvasActionOf(key("c"))).toBe("connect");
    expect(canvasActionOf(key("C", { shiftKey: true }))).toBeNull();
    expect(canvasActionOf(key("?", { shiftKey: true }))).toBe("help");
    expect(canvasActionOf(key("Escape"))).toBe("escape");
    expect(canvasActionOf(key("c", { altKey: true }))).toBeNull();
    expect(canvasActionOf(key("ArrowUp"))).toBeNull();
  });
});

describe("isTextEntry", () => {
  it("is false for non-elements and true for anything inside a field", () => {
    expect(isTextEntry(null)).toBe(false);
    expect(isTextEntry({} as EventTarget)).toBe(false);
    const field = {
      isContentEditable: false,
      closest: (s: string) => (s.includes("textarea") ? {} : null),
    };
    expect(isTextEntry(field as unknown as EventTarget)).toBe(true);
    const node = { isContentEditable: false, closest: () => null };
    expect(isTextEntry(node as unknown as EventTarget)).toBe(false);
  });
});
