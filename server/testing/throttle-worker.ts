/**
 * A separate app process for the cross-process throttle test (auth-throttle-processes.test.ts):
 * opens its own pool on the database in argv[2], says "ready", waits for "go" on stdin, then
 * reserves argv[4] attempts in parallel against the account argv[3] and prints how many were let
 * through. Run with `tsx --conditions=react-server` so "server-only" imports resolve.
 */
import { openDb } from "@/db/client";
import { reserveAttempt } from "@/server/services/auth-throttle/counters";

async function main() {
  const [url, email, n] = process.argv.slice(2);
  const handle = await openDb({ url, maxConnections: 8 });
  process.stdout.write("ready\n");
  await new Promise<void>((resolve) => process.stdin.once("data", () => resolve()));
  process.stdin.destroy();
  const results = await Promise.all(
    Array.from({ length: Number(n) }, () =>
      reserveAttempt(handle.db, { scope: "account", subject: email! }, new Date()),
    ),
  );
  process.stdout.write(`admitted ${results.filter((r) => r.ok).length}\n`);
  await handle.close();
}

main().catch((e: unknown) => {
  console.error(e);
  process.exit(1);
});
