import "server-only";
import fs from "node:fs";
import path from "node:path";
import { env } from "../env";
import { openDb, type Db, type DbHandle } from "./client";
import { migrateDb } from "./migrate";

export * from "./client";
export * as schema from "./schema";

type Slot = { handle?: DbHandle; ready?: Promise<DbHandle> };
// Next evaluates a module 2–4 times per process; the handle must be shared through globalThis or
// several PGlite instances open one folder and writes are silently lost (research/embedded-in-process).
const g = globalThis as typeof globalThis & { __sluiceDb?: Slot };
const slot: Slot = (g.__sluiceDb ??= {});

export function pgliteDir(dataDir = env.SLUICE_DATA_DIR): string {
  return path.resolve(dataDir, "pglite");
}

/** The process-wide database, opened and migrated on first use. */
export function getDbHandle(): Promise<DbHandle> {
  if (slot.ready) return slot.ready;
  if (env.NEXT_PHASE === "phase-production-build") {
    return Promise.reject(new Error("the database is not available during `next build`"));
  }
  slot.ready = (async () => {
    let handle: DbHandle;
    if (env.DATABASE_URL) {
      handle = await openDb({ url: env.DATABASE_URL });
      if (env.SLUICE_AUTO_MIGRATE) await migrateDb(handle);
    } else {
      const dir = pgliteDir();
      fs.mkdirSync(dir, { recursive: true });
      handle = await openDb({ dataDir: dir });
      await migrateDb(handle);
    }
    slot.handle = handle;
    return handle;
  })();
  // Never cache a failed open: the next request retries instead of failing forever.
  slot.ready.catch(() => {
    slot.ready = undefined;
  });
  return slot.ready;
}

/** Makes an already-open handle the process database (tests, child processes, tools). */
export function setProcessDb(handle: DbHandle): void {
  slot.handle = handle;
  slot.ready = Promise.resolve(handle);
}

export async function getDb(): Promise<Db> {
  return (await getDbHandle()).db;
}

export async function closeDb(): Promise<void> {
  const ready = slot.ready;
  slot.ready = undefined;
  slot.handle = undefined;
  if (ready) await (await ready).close();
}
