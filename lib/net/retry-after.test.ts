import { describe, expect, it } from "vitest";
import { MAX_RETRY_AFTER_MS, parseRetryAfter } from "./retry-after";

describe("parseRetryAfter", () => {
  const now = Date.parse("2030-01-01T00:00:00Z");
  it("reads delay-seconds, HTTP dates and the SDK's ISO instants", () => {
    expect(parseRetryAfter("3", now)).toBe(3000);
    expect(parseRetryAfter(" 0 ", now)).toBe(0);
    expect(parseRetryAfter("Tue, 01 Jan 2030 00:00:10 GMT", now)).toBe(10_000);
    expect(parseRetryAfter("Tuesday, 01-Jan-30 00:00:10 GMT", now)).toBe(10_000);
    expect(parseRetryAfter("2030-01-01T00:00:10.000Z", now)).toBe(10_000);
  });
  it("clamps past dates to 0 and long waits to the maximum asked for", () => {
    expect(parseRetryAfter("Mon, 31 Dec 2029 23:59:00 GMT", now)).toBe(0);
    expect(parseRetryAfter("2029-12-31T23:59:00.000Z", now)).toBe(0);
    expect(parseRetryAfter("999999", now)).toBe(MAX_RETRY_AFTER_MS);
    expect(parseRetryAfter("999999", now, 5_000_000_000)).toBe(999_999_000);
    expect(parseRetryAfter("7200", now, 1_000)).toBe(1_000);
  });
  it("ignores missing and invalid values (delay-seconds is a non-negative integer)", () => {
    expect(parseRetryAfter(undefined, now)).toBeUndefined();
    expect(parseRetryAfter(null, now)).toBeUndefined();
    expect(parseRetryAfter("", now)).toBeUndefined();
    expect(parseRetryAfter("soon", now)).toBeUndefined();
    // Date.parse reads these as years; neither is delay-seconds nor a date form.
    expect(parseRetryAfter("-5", now)).toBeUndefined();
    expect(parseRetryAfter("1.5", now)).toBeUndefined();
    expect(parseRetryAfter("Fri, 99 Foo 2030 00:00:00 GMT", now)).toBeUndefined();
  });
});
