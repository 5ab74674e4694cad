/**
 * Test databases: a fresh in-memory PGlite, or — when SLUICE_TEST_DB=postgres — a fresh database
 * created on TEST_DATABASE_URL's server and dropped afterwards. Both are fully migrated.
 */
import { sql } from "drizzle-orm";
import { openDb, type DbHandle } from "./client";
import { migrateDb } from "./migrate";

export type TestDb = DbHandle & { name: string };

export function testDriver(): "pglite" | "postgres" {
  return process.env.SLUICE_TEST_DB === "postgres" ? "postgres" : "pglite";
}

export async function createTestDb(label = "t"): Promise<TestDb> {
  if (testDriver() === "pglite") {
    const handle = await openDb({});
    await migrateDb(handle);
    return { ...handle, name: `pglite:${label}` };
  }
  const base = process.env.TEST_DATABASE_URL;
  if (!base) throw new Error("SLUICE_TEST_DB=postgres needs TEST_DATABASE_URL");
  const name = `sluice_test_${label
    .replace(/[^a-z0-9]/gi, "")
    .toLowerCase()
    .slice(0, 20)}_${Date.now().toString(36)}_${Math.random().toString(36).slice(2, 8)}`;
  const admin = await openDb({ url: base, maxConnections: 1 });
  await admin.db.execute(sql.raw(`create database "${name}"`));
  await admin.close();
  const url = new URL(base);
  url.pathname = `/${name}`;
  const handle = await openDb({ url: url.toString(), maxConnections: 10 });
  await migrateDb(handle);
  return {
    ...handle,
    name,
    close: async () => {
      await handle.close();
      const again = await openDb({ url: base, maxConnections: 1 });
      await again.db.execute(sql.raw(`drop database if exists "${name}" with (force)`));
      await again.close();
    },
  };
}
