/**
 * One Sluice app instance behind a real Inngest, as a child process (the failover test kills it
 * with SIGKILL): the real functions served over node:http on APP_PORT, the outbox relay sending to
 * Inngest, on the shared Postgres APP_DB_URL. The Inngest client reads SLUICE_EXECUTOR=inngest and
 * the INNGEST_* variables the parent passes. Prints "ready" once it serves.
 */
import http from "node:http";
import { serve } from "inngest/node";
import { setProcessDb } from "@/db";
import { openDb } from "@/db/client";
import { createLogger, setLogLevel } from "@/lib/log";
import { workflowEventHooks } from "@/server/boot";
import { createOutboxDeliverer } from "@/server/services/outbox/deliver";
import { startOutboxRelay } from "@/server/services/outbox/relay-runner";
import { inngest } from "../../client";
import { functions } from "../../functions";

async function main() {
  setLogLevel("warn");
  const handle = await openDb({ url: process.env.APP_DB_URL!, maxConnections: 10 });
  setProcessDb(handle);
  const handler = serve({ client: inngest, functions });
  const app = http.createServer((req, res) => void handler(req, res));
  await new Promise<void>((r) => app.listen(Number(process.env.APP_PORT), "127.0.0.1", r));
  startOutboxRelay({
    db: handle.db,
    deliver: createOutboxDeliverer((events) => inngest.send(events), workflowEventHooks()),
    log: createLogger({ component: "outbox" }),
    pollMs: 50,
  });
  process.stdout.write("ready\n");
}

main().catch((e: unknown) => {
  process.stderr.write(`${(e as Error).stack ?? String(e)}\n`);
  process.exit(1);
});
