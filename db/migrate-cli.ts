/**
 * `npm run db:migrate`: applies pending migrations to DATABASE_URL (or the PGlite data folder
 * when the app is NOT running — PGlite allows one process per folder).
 */
import fs from "node:fs";
import path from "node:path";
import { env } from "../env";
import { openDb } from "./client";
import { migrateDb } from "./migrate";

async function main() {
  const handle = env.DATABASE_URL
    ? await openDb({ url: env.DATABASE_URL, maxConnections: 1 })
    : await (async () => {
        const dir = path.resolve(env.SLUICE_DATA_DIR, "pglite");
        fs.mkdirSync(dir, { recursive: true });
        return openDb({ dataDir: dir });
      })();
  await migrateDb(handle);
  await handle.close();
  console.log(`migrations applied (${handle.driver})`);
}

main().catch((e) => {
  console.error(e);
  process.exit(1);
});
