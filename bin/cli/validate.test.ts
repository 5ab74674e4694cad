import { spawnSync } from "node:child_process";
import fs from "node:fs";
import os from "node:os";
import path from "node:path";
import { describe, expect, it } from "vitest";

const BIN = path.resolve("bin/sluice.mjs");

function run(args: string[], stdin?: string) {
  const r = spawnSync(process.execPath, [BIN, ...args], {
    input: stdin,
    encoding: "utf8",
    timeout: 30_000,
  });
  return { code: r.status, out: r.stdout, err: r.stderr, json: () => JSON.parse(r.stdout) };
}

const valid = {
  schemaVersion: 1,
  name: "CLI",
  steps: [{ id: "a", type: "transform", config: { value: 1 } }],
};

describe("sluice validate", () => {
  it("accepts a valid definition from a file and prints its hash (exit 0)", () => {
    const file = path.join(fs.mkdtempSync(path.join(os.tmpdir(), "sluice-cli-")), "wf.json");
    fs.writeFileSync(file, JSON.stringify(valid));
    const r = run(["validate", file]);
    expect(r.code).toBe(0);
    const env = r.json();
    expect(env).toMatchObject({ ok: true, status: "valid", errors: [] });
    expect(env.workflowHash).toMatch(/^sha256:[0-9a-f]{64}$/);
  });

  it("takes RFC §6's --workflow-path <file> and --workflow-json <json|->; one source only", () => {
    const file = path.join(fs.mkdtempSync(path.join(os.tmpdir(), "sluice-cli-")), "wf.json");
    fs.writeFileSync(file, JSON.stringify(valid));
    const byPath = run(["validate", "--workflow-path", file]);
    expect(byPath.code, byPath.out + byPath.err).toBe(0);
    const hash = byPath.json().workflowHash;
    expect(hash).toMatch(/^sha256:[0-9a-f]{64}$/);
    const inline = run(["validate", "--workflow-json", JSON.stringify(valid)]);
    expect([inline.code, inline.json().workflowHash]).toEqual([0, hash]);
    const piped = run(["validate", "--workflow-json", "-"], JSON.stringify(valid));
    expect([piped.code, piped.json().workflowHash]).toEqual([0, hash]);
    const invalid = run(["validate", "--workflow-json", '{"schemaVersion":1}']);
    expect([invalid.code, invalid.json().status]).toEqual([10, "invalid"]);
    const both = run(["validate", file, "--workflow-json", "{}"]);
    expect(both.code).toBe(10);
    expect(both.json().error).toMatchObject({
      code: "usage",
      message: "Give one definition: a file argument or --workflow-json, not both",
    });
  });

  it("reads YAML from stdin", () => {
    const r = run(
      ["validate", "-"],
      "schemaVersion: 1\nname: Y\nsteps:\n  - id: a\n    type: transform\n    config: { value: 2 }\n",
    );
    expect(r.code).toBe(0);
    expect(r.json().status).toBe("valid");
  });

  it("reports every problem with its path and exits 10", () => {
    const bad = {
      schemaVersion: 1,
      name: "Bad",
      steps: [
        { id: "a", type: "nope" },
        { id: "a", type: "transform", config: { value: "{{ steps.ghost.output }}" } },
      ],
    };
    const r = run(["validate"], JSON.stringify(bad));
    expect(r.code).toBe(10);
    const env = r.json();
    expect(env).toMatchObject({ ok: false, status: "invalid", workflowHash: null });
    expect(env.errors.length).toBeGreaterThanOrEqual(2);
    for (const e of env.errors) {
      expect(typeof e.message).toBe("string");
      expect(Array.isArray(e.path)).toBe(true);
    }
  });

  it("reports malformed JSON with a line number (exit 10) and unknown commands", () => {
    const r = run(["validate"], '{\n  "name": "x",\n  oops\n}');
    expect(r.code).toBe(10);
    expect(r.json().errors[0].line).toBe(3);
    expect(run(["frobnicate"]).code).toBe(10);
    const missing = run(["validate", "/does/not/exist.json"]);
    expect(missing.code).toBe(40);
    expect(missing.json().error.message).toMatch(/no such file/i);
  });
});
