import { describe, expect, it } from "vitest";
import {
  THROTTLE_POLICIES,
  lockSeconds,
  parseThrottleErrorCode,
  throttleErrorCode,
  tooManyAttemptsMessage,
} from "./auth-throttle";

describe("lockSeconds", () => {
  it("is free up to the budget, then doubles from the base up to the cap", () => {
    const p = THROTTLE_POLICIES.account;
    expect([1, 2, 3, 4].map((n) => lockSeconds(p, n, 15))).toEqual([0, 0, 0, 0]);
    expect([5, 6, 7, 8, 9, 10, 11, 12, 1000].map((n) => lockSeconds(p, n, 15))).toEqual([
      15, 30, 60, 120, 240, 480, 900, 900, 900,
    ]);
  });
});

describe("throttle error codes", () => {
  it("round-trip through next-auth's error parameter and read as a sentence", () => {
    expect(parseThrottleErrorCode(throttleErrorCode(14.2))).toBe(15);
    expect(parseThrottleErrorCode("CredentialsSignin")).toBeNull();
    expect(parseThrottleErrorCode(undefined)).toBeNull();
    expect(tooManyAttemptsMessage(15)).toBe("Too many attempts — try again in 15 s.");
  });
});
