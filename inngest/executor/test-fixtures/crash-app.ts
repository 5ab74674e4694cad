/**
 * Child process for the crash test: a tiny app (node:http + the SDK's serve handler) and the
 * executor on one database (a PGlite folder or a Postgres URL), as in production. The test kills
 * it with SIGKILL at chosen moments and starts it again on the same database.
 *
 * Env (test-only, set by crash.test.ts): CRASH_DB, CRASH_APP_PORT, CRASH_EXEC_PORT, CRASH_LOG,
 * CRASH_LEASE_MS.
 */
import fs from "node:fs";
import http from "node:http";
import { Inngest } from "inngest";
import { serve } from "inngest/node";
import { openDb } from "../../../db/client";
import { migrateDb } from "../../../db/migrate";
import { createLogger, setLogLevel } from "../../../lib/log";
import { createExecutor } from "../executor";

const env = process.env;
const dbTarget = env.CRASH_DB!;
const appPort = Number(env.CRASH_APP_PORT);
const execPort = Number(env.CRASH_EXEC_PORT);
const sideEffects = env.CRASH_LOG!;
const record = (line: string) => fs.appendFileSync(sideEffects, `${line}\n`);

async function main() {
  setLogLevel("warn");
  const db = await openDb(
    dbTarget.startsWith("postgres") ? { url: dbTarget, maxConnections: 4 } : { dataDir: dbTarget },
  );
  await migrateDb(db);

  const inngest = new Inngest({
    id: "crash",
    isDev: true,
    baseUrl: `http://127.0.0.1:${execPort}`,
    logger: { info() {}, warn() {}, error() {}, debug() {} },
  });
  const fn = inngest.createFunction(
    { id: "crashy", triggers: [{ event: "crash/go" }] },
    async ({ step }) => {
      const one = await step.run("one", () => {
        record("one");
        return 1;
      });
      await step.sleep("nap", "1s");
      const two = await step.run("two", async () => {
        record("two:start");
        await new Promise((r) => setTimeout(r, 1_000));
        record("two:end");
        return 2;
      });
      const three = await step.run("three", () => {
        record("three");
        return 3;
      });
      return one + two + three;
    },
  );
  const app = http.createServer(serve({ client: inngest, functions: [fn] }));
  await new Promise<void>((r) => app.listen(appPort, "127.0.0.1", r));

  const executor = createExecutor({
    db,
    appUrls: [`http://127.0.0.1:${appPort}/api/inngest`],
    log: createLogger({ component: "executor-crash-child", pid: process.pid }),
    leaseMs: Number(env.CRASH_LEASE_MS ?? 1_000),
    pollIntervalMs: 100,
    backoff: () => 100,
  });
  await executor.start({ port: execPort });
  process.stdout.write("ready\n");
}

main().catch((e) => {
  process.stderr.write(`crash-app failed: ${(e as Error).stack}\n`);
  process.exit(1);
});
