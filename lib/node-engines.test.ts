/**
 * Issue #25.7: `npm install` on the Node these machines run (package.json: `engines.node`) must
 * not warn EBADENGINE — zod-openapi 6 wanted Node >= 22.14 while we declare and run Node 20.
 * npm decides, as it would on a fresh clone: a dry run over package.json and the lockfile,
 * offline (the lockfile has everything; nothing is fetched or written).
 */
import { spawnSync } from "node:child_process";
import fs from "node:fs";
import os from "node:os";
import path from "node:path";
import { describe, expect, it } from "vitest";

describe("declared Node engines", () => {
  it("npm install (dry run, offline) warns no EBADENGINE for any locked package", () => {
    const dir = fs.mkdtempSync(path.join(os.tmpdir(), "sluice-engines-"));
    try {
      for (const f of ["package.json", "package-lock.json"]) fs.copyFileSync(f, path.join(dir, f));
      const r = spawnSync(
        "npm",
        ["install", "--dry-run", "--offline", "--ignore-scripts", "--no-audit", "--no-fund"],
        { cwd: dir, encoding: "utf8", timeout: 120_000 },
      );
      const out = `${r.stdout}\n${r.stderr}`;
      expect(r.status, out).toBe(0);
      const unsupported = [...out.matchAll(/EBADENGINE\s+package: '([^']+)'/g)].map((m) => m[1]);
      expect(unsupported, `Node ${process.versions.node}`).toEqual([]);
    } finally {
      fs.rmSync(dir, { recursive: true, force: true });
    }
  }, 120_000);
});
