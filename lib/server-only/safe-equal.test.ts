import { describe, expect, it } from "vitest";
import { safeEqual } from "./safe-equal";

describe("safeEqual", () => {
  it("is true only for identical strings", () => {
    expect(safeEqual("signkey-prod-abc", "signkey-prod-abc")).toBe(true);
    expect(safeEqual("", "")).toBe(true);
    expect(safeEqual("é", "é")).toBe(true);
    expect(safeEqual("signkey-prod-abc", "signkey-prod-abd")).toBe(false);
    expect(safeEqual("abc", "ABC")).toBe(false);
  });
  it("refuses prefixes and other lengths", () => {
    expect(safeEqual("abc", "abcd")).toBe(false);
    expect(safeEqual("abcd", "abc")).toBe(false);
    expect(safeEqual("", "a")).toBe(false);
  });
  it("compares characters, not a lossy encoding of them", () => {
    // Both would become "?" under a latin1 encoding; utf8 keeps them apart.
    expect(safeEqual("\u{1F600}", "\u{1F601}")).toBe(false);
  });
});
