import fc from "fast-check";
import { describe, expect, it } from "vitest";
import { describePath, storableCopy, unstorableText } from "./storable-text";

describe("unstorableText", () => {
  it("finds NUL characters and lone surrogates in values and keys, with their path", () => {
    expect(unstorableText({ a: [1, { name: "x\u0000y" }] })).toMatchObject({
      path: ["a", 1, "name"],
      message: expect.stringContaining("NUL"),
    });
    expect(unstorableText({ input: { s: "\uD800" } })).toMatchObject({
      path: ["input", "s"],
      message: expect.stringContaining("surrogate"),
    });
    expect(unstorableText(["ok", "\uDC00 trailing half"])).toMatchObject({ path: [1] });
    expect(unstorableText({ ["bad\u0000key"]: 1 })).toMatchObject({
      path: ["bad\u0000key"],
      message: expect.stringMatching(/^The key/),
    });
    expect(describePath(["input", "name"])).toBe("input.name");
  });

  it("accepts ordinary text, paired surrogates (emoji) and non-string values", () => {
    expect(unstorableText({ emoji: "🚀 déploiement", n: 1, b: true, z: null, d: new Date() })).toBe(
      null,
    );
    expect(unstorableText("plain")).toBe(null);
  });

  it("agrees with what Postgres can store: a string is refused iff it has NUL or a lone surrogate", () => {
    fc.assert(
      fc.property(fc.string({ unit: "binary" }), (s) => {
        const hasNul = s.includes("\u0000");
        const wellFormed = (s as unknown as { isWellFormed(): boolean }).isWellFormed();
        expect(unstorableText(s) !== null).toBe(hasNul || !wellFormed);
      }),
      { numRuns: 2000 },
    );
  });

  it("finds a NUL however deep it is nested (was skipped past 256 levels: a 500 on save)", () => {
    let v: unknown = ["\u0000"];
    for (let i = 0; i < 20_000; i++) v = { a: v };
    const found = unstorableText({ draft: v });
    expect(found?.path).toHaveLength(20_002);
    expect(found?.path.slice(0, 3)).toEqual(["draft", "a", "a"]);
    expect(found?.path.at(-1)).toBe(0);
  });

  it("storableCopy replaces NUL and lone surrogates in strings and keys, nothing else", () => {
    const copy = storableCopy({ "k\u0000": ["a\u0000b", "\ud800x", "ok 😀"], n: 1, z: null });
    expect(copy).toEqual({ "k\uFFFD": ["a\uFFFDb", "\uFFFDx", "ok 😀"], n: 1, z: null });
    expect(unstorableText(copy)).toBeNull();
  });
});
