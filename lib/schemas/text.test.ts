import { describe, expect, it } from "vitest";
import { z } from "zod";
import { clip, quote } from "../workflow/json";
import { plainText, textProblem } from "./text";

describe("textProblem: names", () => {
  it.each([
    [
      "a\u0000b",
      "contains a NUL character (U+0000) at position 2, which cannot be stored; remove it",
    ],
    ["tab\there", "contains a control character (U+0009) at position 4; remove it"],
    ["line\nbreak", "contains a control character (U+000A) at position 5; remove it"],
    ["del\u007f", "contains a control character (U+007F) at position 4; remove it"],
    [
      "Pay\u202Eroll",
      "contains an invisible character, right-to-left override (U+202E), at position 4; remove it",
    ],
    [
      "a\u202Ab",
      "contains an invisible character, left-to-right embedding (U+202A), at position 2; remove it",
    ],
    [
      "a\u2069",
      "contains an invisible character, pop directional isolate (U+2069), at position 2; remove it",
    ],
    [
      "x\u200By",
      "contains an invisible character, zero-width space (U+200B), at position 2; remove it",
    ],
    [
      "ad\u200Cmin",
      "contains an invisible character, zero-width non-joiner (U+200C), at position 3; remove it",
    ],
    [
      "\u200Dé",
      "contains an invisible character, zero-width joiner (U+200D), at position 1; remove it",
    ],
    ["a\u2060b", "contains an invisible character, word joiner (U+2060), at position 2; remove it"],
    [
      "a\uFEFFb",
      "contains an invisible character, zero-width no-break space (BOM) (U+FEFF), at position 2; remove it",
    ],
    ["\u200B\u200B", "has no visible characters"],
    [" \u2066 \u2069 ", "has no visible characters"],
  ])("%j → %s", (text, problem) => {
    expect(textProblem(text)).toBe(problem);
  });

  it.each([
    "Deploy to prod",
    "Déploiement — été",
    "デプロイ",
    "👩\u200D💻 builds", // ZWJ inside an emoji sequence
    "\u0645\u06CC\u200C\u062E\u0648\u0627\u0647\u0645", // Persian ZWNJ between letters
    "",
  ])("%j is fine", (text) => {
    expect(textProblem(text)).toBeNull();
  });
});

describe("textProblem: free text (multiline)", () => {
  it("allows tab, LF, CR and invisible characters; refuses NUL and other controls", () => {
    expect(textProblem("a\tb\r\nc \u202E quoted", { multiline: true })).toBeNull();
    expect(textProblem("a\u0000", { multiline: true })).toMatch(/NUL character \(U\+0000\)/);
    expect(textProblem("a\u001b[31m", { multiline: true })).toMatch(
      /control character \(U\+001B\)/,
    );
  });
});

describe("plainText", () => {
  const Name = plainText(z.string().trim().min(1).max(20));
  it("refines after trimming, keeps the schema's own checks and its type", () => {
    expect(Name.parse("  Deploy  ")).toBe("Deploy");
    expect(Name.safeParse("").success).toBe(false);
    const r = Name.safeParse("De\u200Bploy");
    expect(r.success).toBe(false);
    expect(r.error?.issues[0]?.message).toMatch(/zero-width space/);
    expect(Name.optional().parse(undefined)).toBeUndefined();
  });
});

describe("clip and quote", () => {
  it("keep short text whole and cut long text to 200 characters with an ellipsis", () => {
    expect(clip("short")).toBe("short");
    expect(clip("x".repeat(200))).toBe("x".repeat(200));
    expect(clip("x".repeat(10_000))).toBe(`${"x".repeat(199)}…`);
    expect(quote("y".repeat(10_000))).toBe(`"${"y".repeat(199)}…"`);
  });

  it("never split a surrogate pair", () => {
    const text = "a".repeat(198) + "😀" + "b".repeat(50); // the emoji spans indexes 198–199
    const clipped = clip(text);
    expect(clipped).toBe(`${"a".repeat(198)}…`);
    expect(clipped.length).toBeLessThanOrEqual(200);
  });
});
