/**
 * The throttle across app instances: two separate Node processes, each with its own connection
 * pool, reserve attempts on one account of the same Postgres database at the same moment; their
 * combined admissions never exceed the budget. Postgres only (PGlite is one process's database).
 */
import { spawn, type ChildProcessWithoutNullStreams } from "node:child_process";
import path from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { createTestDb, testDriver, type TestDb } from "@/db/testing";
import { THROTTLE_POLICIES } from "@/lib/security/auth-throttle";

const isPostgres = testDriver() === "postgres";
let t: TestDb;
beforeAll(async () => {
  if (isPostgres) t = await createTestDb("throttleproc");
});
afterAll(async () => {
  await t?.close();
});

function worker(url: string, email: string, n: number) {
  const root = path.resolve(import.meta.dirname, "../../..");
  const child = spawn(
    process.execPath,
    [
      path.join(root, "node_modules/tsx/dist/cli.mjs"),
      "--conditions=react-server",
      "--tsconfig",
      path.join(root, "tsconfig.json"),
      path.join(root, "server/testing/throttle-worker.ts"),
      url,
      email,
      String(n),
    ],
    { cwd: root, env: { ...process.env, LOG_LEVEL: "silent" } },
  );
  let out = "";
  let err = "";
  child.stdout.on("data", (d: Buffer) => (out += d.toString()));
  child.stderr.on("data", (d: Buffer) => (err += d.toString()));
  const exited = new Promise<number>((resolve) => child.on("exit", (code) => resolve(code ?? -1)));
  const ready = new Promise<void>((resolve, reject) => {
    child.stdout.on("data", () => out.includes("ready") && resolve());
    void exited.then((code) => reject(new Error(`worker exited ${code} before ready: ${err}`)));
  });
  return {
    child: child as ChildProcessWithoutNullStreams,
    ready,
    async admitted(): Promise<number> {
      const code = await exited;
      const m = /admitted (\d+)/.exec(out);
      if (code !== 0 || !m) throw new Error(`worker failed (${code}): ${err}`);
      return Number(m[1]);
    },
  };
}

describe.skipIf(!isPostgres)("two app processes on one Postgres", () => {
  it("parallel guesses from both never get more than the budget together", async () => {
    const budget = THROTTLE_POLICIES.account.freeFailures;
    for (const round of [1, 2]) {
      const email = `two-processes-${round}@example.com`;
      const a = worker(t.url!, email, 15);
      const b = worker(t.url!, email, 15);
      await Promise.all([a.ready, b.ready]);
      a.child.stdin.end("go\n");
      b.child.stdin.end("go\n");
      const total = (await a.admitted()) + (await b.admitted());
      expect(total).toBe(budget);
    }
  });
});
