import { describe, expect, it } from "vitest";
import { parseEnv } from "../env";
import { effectiveSigningKey } from "./signing-key";

describe("executor signing key", () => {
  it("signs in production with the embedded executor even without configuration", () => {
    const key = effectiveSigningKey(
      parseEnv({ NODE_ENV: "production", SLUICE_SECRET: "p".repeat(40) }),
    );
    expect(key).toMatch(/^signkey-prod-[0-9a-f]{64}$/);
  });

  it("prefers a configured key, and stays in dev mode in development and during builds", () => {
    expect(
      effectiveSigningKey(
        parseEnv({ NODE_ENV: "production", INNGEST_SIGNING_KEY: "signkey-prod-abc" }),
      ),
    ).toBe("signkey-prod-abc");
    expect(effectiveSigningKey(parseEnv({ NODE_ENV: "development" }))).toBeUndefined();
    expect(
      effectiveSigningKey(
        parseEnv({
          NODE_ENV: "production",
          NEXT_PHASE: "phase-production-build",
          SLUICE_SECRET: "p".repeat(40),
        }),
      ),
    ).toBeUndefined();
  });
});
