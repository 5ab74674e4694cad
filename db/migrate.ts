import { sql } from "drizzle-orm";
import { MIGRATIONS_FOLDER, openDb, type DbHandle } from "./client";

/** Serialises concurrent migrators on one Postgres (two instances starting at once). */
const MIGRATION_LOCK = 7_041_776_001;

export async function migrateDb(
  handle: DbHandle,
  migrationsFolder = MIGRATIONS_FOLDER,
): Promise<void> {
  if (handle.driver === "pglite") {
    const { migrate } = await import("drizzle-orm/pglite/migrator");
    // PGlite is one connection in one process: nothing else can migrate concurrently.
    await migrate(handle.db as never, { migrationsFolder });
    return;
  }
  // A session advisory lock must be taken and released on the same connection: use a
  // dedicated single-connection client rather than the pool.
  const single = await openDb({ url: handle.url, maxConnections: 1 });
  try {
    await single.db.execute(sql`select pg_advisory_lock(${MIGRATION_LOCK})`);
    try {
      const { migrate } = await import("drizzle-orm/postgres-js/migrator");
      await migrate(single.db as never, { migrationsFolder });
    } finally {
      await single.db.execute(sql`select pg_advisory_unlock(${MIGRATION_LOCK})`);
    }
  } finally {
    await single.close();
  }
}
