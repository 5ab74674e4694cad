import { describe, expect, it } from "vitest";
import { MAX_RETRY_AFTER_MS, parseRetryAfter } from "./retry-after";

describe("parseRetryAfter", () => {
  const now = Date.parse("2030-01-01T00:00:00Z");
  it("reads seconds and HTTP dates", () => {
    expect(parseRetryAfter("3", now)).toBe(3000);
    expect(parseRetryAfter(" 0 ", now)).toBe(0);
    expect(parseRetryAfter("Tue, 01 Jan 2030 00:00:10 GMT", now)).toBe(10_000);
  });
  it("clamps past dates to 0 and huge waits to the maximum", () => {
    expect(parseRetryAfter("Mon, 31 Dec 2029 23:59:00 GMT", now)).toBe(0);
    expect(parseRetryAfter("999999", now)).toBe(MAX_RETRY_AFTER_MS);
  });
  it("ignores missing and malformed values", () => {
    expect(parseRetryAfter(undefined, now)).toBeUndefined();
    expect(parseRetryAfter("soon", now)).toBeUndefined();
    expect(parseRetryAfter("-5", now)).toBeUndefined();
  });
});
