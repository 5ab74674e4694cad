import { spawnSync } from "node:child_process";
import path from "node:path";
import { describe, expect, it } from "vitest";

const BIN = path.resolve("bin/sluice.mjs");

/** No server is configured: a usage error must come before any request. */
function propose(args: string[]) {
  const r = spawnSync(process.execPath, [BIN, "propose", "--workflow-id", "wf_x", ...args], {
    encoding: "utf8",
    timeout: 30_000,
    env: { ...process.env, SLUICE_URL: "http://127.0.0.1:9", SLUICE_TOKEN: "slu_unused" },
  });
  const env = JSON.parse(r.stdout) as { ok: boolean; error: { code: string; message: string } };
  return { code: r.status, error: env.error };
}

const patch = ["--patch", '[{"op":"replace","path":"/name","value":"X"}]'];

describe("sluice propose --base-hash", () => {
  it("is required: without it, exit 10 naming the flag and how to say current", () => {
    const r = propose(patch);
    expect(r.code).toBe(10);
    expect(r.error.code).toBe("usage");
    expect(r.error.message).toMatch(/^Give --base-hash: .*, or "current"$/);
  });

  it.each(["sha256:abc", "latest", `SHA256:${"0".repeat(64)}`, `sha256:${"g".repeat(64)}`])(
    "a malformed hash (%s) is exit 10 before any request, not a stale base",
    (hash) => {
      const r = propose(["--base-hash", hash, ...patch]);
      expect(r.code).toBe(10);
      expect(r.error).toMatchObject({
        code: "usage",
        message: expect.stringMatching(
          /^--base-hash: A base hash is "sha256:" followed by 64 lower-case hex digits, or "current"; got "/,
        ),
      });
    },
  );

  it("--help documents it as required, with current", () => {
    const r = spawnSync(process.execPath, [BIN, "propose", "--help"], { encoding: "utf8" });
    expect(r.stdout).toContain("--base-hash <sha256:…|current>");
    expect(r.stdout).toContain("--base-hash current");
  });
});
