/**
 * Test databases: a fresh in-memory PGlite, or — when SLUICE_TEST_DB=postgres — a fresh database
 * created on TEST_DATABASE_URL's server and dropped afterwards. Both are fully migrated.
 */
import { createHash } from "node:crypto";
import fs from "node:fs";
import os from "node:os";
import path from "node:path";
import { sql } from "drizzle-orm";
import { execRows, MIGRATIONS_FOLDER, openDb, type DbHandle } from "./client";
import { migrateDb } from "./migrate";

/**
 * A copy of the migrations folder holding only the migrations before `tag` (its journal cut
 * there): the schema as the release before `tag` left it.
 */
export function migrationsBefore(tag: string): string {
  const journalPath = path.join(MIGRATIONS_FOLDER, "meta", "_journal.json");
  const journal = JSON.parse(fs.readFileSync(journalPath, "utf8")) as {
    entries: { tag: string }[];
  };
  const cut = journal.entries.findIndex((e) => e.tag === tag);
  if (cut < 0) throw new Error(`migrationsBefore: no migration tagged ${tag}`);
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), "sluice-migrations-"));
  fs.mkdirSync(path.join(dir, "meta"));
  for (const e of journal.entries.slice(0, cut))
    fs.copyFileSync(path.join(MIGRATIONS_FOLDER, `${e.tag}.sql`), path.join(dir, `${e.tag}.sql`));
  fs.writeFileSync(
    path.join(dir, "meta", "_journal.json"),
    JSON.stringify({ ...journal, entries: journal.entries.slice(0, cut) }),
  );
  return dir;
}

export type TestDb = DbHandle & { name: string };

export function testDriver(): "pglite" | "postgres" {
  return process.env.SLUICE_TEST_DB === "postgres" ? "postgres" : "pglite";
}

/**
 * `migrationsFolder`: migrate with another folder instead (a migration test builds the database
 * as an older release left it, then runs the newer migrations over its data).
 */
export async function createTestDb(
  label = "t",
  opts: { migrationsFolder?: string } = {},
): Promise<TestDb> {
  if (testDriver() === "pglite") {
    if (opts.migrationsFolder) {
      const handle = await openDb({});
      await migrateDb(handle, opts.migrationsFolder);
      return { ...handle, name: `pglite:${label}` };
    }
    const handle = await openDb({ loadDataDir: await pgliteTemplate() });
    return { ...handle, name: `pglite:${label}` };
  }
  const base = process.env.TEST_DATABASE_URL;
  if (!base) throw new Error("SLUICE_TEST_DB=postgres needs TEST_DATABASE_URL");
  const name = `sluice_test_${label
    .replace(/[^a-z0-9]/gi, "")
    .toLowerCase()
    .slice(0, 20)}_${Date.now().toString(36)}_${Math.random().toString(36).slice(2, 8)}`;
  // The current migrations: a copy of the migrated template (a fraction of migrating anew).
  const template = opts.migrationsFolder ? undefined : await postgresTemplate(base);
  const admin = await openDb({ url: base, maxConnections: 1 });
  await admin.db.execute(
    sql.raw(`create database "${name}"${template ? ` template "${template}"` : ""}`),
  );
  await admin.close();
  const url = new URL(base);
  url.pathname = `/${name}`;
  const handle = await openDb({ url: url.toString(), maxConnections: 10 });
  if (!template) await migrateDb(handle, opts.migrationsFolder);
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

/** A digest of the migrations folder: templates are keyed by it, so a new migration makes new ones. */
function migrationsDigest(): string {
  const files = fs.readdirSync(MIGRATIONS_FOLDER, { recursive: true }).map(String).sort();
  const digest = createHash("sha256");
  for (const f of files) {
    const full = path.join(MIGRATIONS_FOLDER, f);
    if (fs.statSync(full).isFile()) digest.update(f).update(fs.readFileSync(full));
  }
  return digest.digest("hex").slice(0, 16);
}

/**
 * A migrated Postgres database to copy (`create database … template`), made once per set of
 * migrations and kept on the server: copying it takes a fraction of a second, migrating a fresh
 * database 2–3 s, once per test file. It is built under another name and renamed when complete, so
 * no copy is ever taken from a half-migrated one; an advisory lock keeps two processes (the main
 * suite and the conformance suite start together) from building it twice. Nothing ever connects
 * to it after that (a connected template cannot be copied).
 */
async function postgresTemplate(base: string): Promise<string> {
  const template = `sluice_template_${migrationsDigest()}`;
  const exists = async (db: DbHandle) =>
    (await execRows(db.db, sql`select 1 as ok from pg_database where datname = ${template}`))
      .length > 0;
  const admin = await openDb({ url: base, maxConnections: 1 });
  try {
    if (await exists(admin)) return template;
    await admin.db.execute(sql`select pg_advisory_lock(hashtext(${template}))`);
    try {
      if (await exists(admin)) return template;
      const building = `${template}_building`;
      await admin.db.execute(sql.raw(`drop database if exists "${building}" with (force)`));
      await admin.db.execute(sql.raw(`create database "${building}"`));
      const url = new URL(base);
      url.pathname = `/${building}`;
      const fresh = await openDb({ url: url.toString(), maxConnections: 1 });
      try {
        await migrateDb(fresh);
      } finally {
        await fresh.close();
      }
      await admin.db.execute(sql.raw(`alter database "${building}" rename to "${template}"`));
      return template;
    } finally {
      await admin.db.execute(sql`select pg_advisory_unlock(hashtext(${template}))`);
    }
  } finally {
    await admin.close();
  }
}

/**
 * A migrated PGlite data directory, dumped once per set of migrations and cached in the temp
 * folder: restoring it takes well under a second, while booting and migrating takes several.
 */
async function pgliteTemplate(): Promise<Blob> {
  const file = path.join(os.tmpdir(), `sluice-pglite-template-${migrationsDigest()}.tar.gz`);
  if (!fs.existsSync(file)) {
    const fresh = await openDb({});
    await migrateDb(fresh);
    const dump = await fresh.dumpDataDir!();
    await fresh.close();
    const tmp = `${file}.${process.pid}.tmp`;
    fs.writeFileSync(tmp, Buffer.from(await dump.arrayBuffer()));
    fs.renameSync(tmp, file); // atomic: parallel workers never read a half-written template
  }
  return new Blob([fs.readFileSync(file)]);
}
