import { describe, expect, it } from "vitest";
import { describeUserAgent } from "./describe-user-agent";

describe("describeUserAgent", () => {
  it("names browser (major version) and system", () => {
    expect(
      describeUserAgent(
        "Mozilla/5.0 (Macintosh; Intel Mac OS X 10_15_7) AppleWebKit/537.36 (KHTML, like Gecko) Chrome/131.0.0.0 Safari/537.36",
      ),
    ).toBe("Chrome 131 on macOS Catalina");
    expect(
      describeUserAgent("Mozilla/5.0 (X11; Linux x86_64; rv:133.0) Gecko/20100101 Firefox/133.0"),
    ).toBe("Firefox 133 on Linux");
    expect(
      describeUserAgent(
        "Mozilla/5.0 (Linux; Android 14; Pixel 8) AppleWebKit/537.36 (KHTML, like Gecko) Chrome/131.0.0.0 Mobile Safari/537.36",
      ),
    ).toMatch(/^Chrome 131 on Android/);
  });

  it("falls back to the raw string, shortened, or says it does not know", () => {
    expect(describeUserAgent(null)).toBe("Unknown client");
    expect(describeUserAgent("   ")).toBe("Unknown client");
    expect(describeUserAgent("x".repeat(100))).toBe(`${"x".repeat(57)}…`);
  });
});
