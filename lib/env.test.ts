import { describe, expect, it } from "vitest";
import { parseEnv } from "../env";

describe("configuration (env.ts)", () => {
  it("accepts an empty environment with safe defaults", () => {
    const env = parseEnv({});
    expect(env).toMatchObject({
      SLUICE_DATA_DIR: "./.data",
      PORT: 3000,
      SLUICE_EXECUTOR: "embedded",
      SLUICE_OPEN_SIGNUP: false,
    });
    expect(env.DATABASE_URL).toBeUndefined();
  });

  it("sandboxes script steps unless SLUICE_SCRIPT_SANDBOX=none says otherwise; other values are refused", () => {
    expect(parseEnv({}).SLUICE_SCRIPT_SANDBOX).toBe("bwrap");
    expect(parseEnv({ SLUICE_SCRIPT_SANDBOX: "none" }).SLUICE_SCRIPT_SANDBOX).toBe("none");
    expect(() => parseEnv({ SLUICE_SCRIPT_SANDBOX: "off" })).toThrow(/SLUICE_SCRIPT_SANDBOX/);
  });

  it("names every malformed or missing variable in one message", () => {
    let message = "";
    try {
      parseEnv({
        DATABASE_URL: "mysql://x",
        PORT: "99999",
        SLUICE_SECRET: "short",
        SLUICE_OPEN_SIGNUP: "maybe",
      });
    } catch (e) {
      message = (e as Error).message;
    }
    for (const name of ["DATABASE_URL", "PORT", "SLUICE_SECRET", "SLUICE_OPEN_SIGNUP"])
      expect(message).toContain(name);
    expect(message).toContain(".env.example");
    // Cross-variable rules.
    expect(() => parseEnv({ GITHUB_ID: "abc" })).toThrow(
      /GITHUB_SECRET: GITHUB_ID and GITHUB_SECRET must be set together/,
    );
  });

  it("requires a shared secret in production with a real database", () => {
    expect(() => parseEnv({ NODE_ENV: "production", DATABASE_URL: "postgres://u@h/db" })).toThrow(
      /SLUICE_SECRET/,
    );
    expect(
      parseEnv({
        NODE_ENV: "production",
        DATABASE_URL: "postgres://u@h/db",
        SLUICE_SECRET: "x".repeat(40),
      }).DATABASE_URL,
    ).toBe("postgres://u@h/db");
  });

  it("schedules' minimum interval defaults to 60 s and must be a positive whole number", () => {
    expect(parseEnv({}).SLUICE_SCHEDULE_MIN_INTERVAL_SECONDS).toBe(60);
    expect(
      parseEnv({ SLUICE_SCHEDULE_MIN_INTERVAL_SECONDS: "300" })
        .SLUICE_SCHEDULE_MIN_INTERVAL_SECONDS,
    ).toBe(300);
    expect(() => parseEnv({ SLUICE_SCHEDULE_MIN_INTERVAL_SECONDS: "0" })).toThrow(
      /SLUICE_SCHEDULE_MIN_INTERVAL_SECONDS/,
    );
  });

  it("the default quota plan is enterprise (unlimited) and must name a plan", () => {
    expect(parseEnv({}).SLUICE_DEFAULT_PLAN).toBe("enterprise");
    expect(parseEnv({ SLUICE_DEFAULT_PLAN: "free" }).SLUICE_DEFAULT_PLAN).toBe("free");
    expect(() => parseEnv({ SLUICE_DEFAULT_PLAN: "gold" })).toThrow(/SLUICE_DEFAULT_PLAN/);
  });

  it("treats empty strings as unset", () => {
    expect(parseEnv({ DATABASE_URL: "", PORT: "" }).PORT).toBe(3000);
  });
});
