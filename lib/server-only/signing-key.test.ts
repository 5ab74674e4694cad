import { describe, expect, it } from "vitest";
import { hashedSigningKey } from "./signing-key";

describe("hashedSigningKey", () => {
  it("hashes the key's bytes as the SDK does, keeping the prefix", () => {
    expect(hashedSigningKey("signkey-test-00ff")).toBe(
      "signkey-test-06eb7d6a69ee19e5fbdf749018d3d2abfa04bcbd1365db312eb86dc7169389b8",
    );
    expect(hashedSigningKey("signkey-prod-00ff")).toMatch(/^signkey-prod-06eb7d6a/);
  });
  it("hashes a key without a prefix whole", () => {
    expect(hashedSigningKey("00ff")).toBe(
      "06eb7d6a69ee19e5fbdf749018d3d2abfa04bcbd1365db312eb86dc7169389b8",
    );
  });
});
