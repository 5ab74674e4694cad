import { describe, expect, it } from "vitest";
import { MIN_REDACTABLE_LENGTH } from "../redact";
import { CreateSecretInput, SECRET_VALUE_MIN_LENGTH } from "./secrets";

describe("secret input", () => {
  it("never accepts a value the redactor would ignore", () => {
    expect(SECRET_VALUE_MIN_LENGTH).toBe(MIN_REDACTABLE_LENGTH);
    expect(
      CreateSecretInput.safeParse({ name: "A", value: "x".repeat(MIN_REDACTABLE_LENGTH - 1) })
        .success,
    ).toBe(false);
    expect(
      CreateSecretInput.safeParse({ name: "A", value: "x".repeat(MIN_REDACTABLE_LENGTH) }).success,
    ).toBe(true);
  });
});
