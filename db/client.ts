import path from "node:path";
import type { ExtractTablesWithRelations } from "drizzle-orm";
import type { PgDatabase, PgQueryResultHKT, PgTransaction } from "drizzle-orm/pg-core";
import type { SQL } from "drizzle-orm";
import { trackCommits } from "./after-commit";
import * as schema from "./schema";

export type Schema = typeof schema;
/** The one database type services see: the same queries run on PGlite and on postgres.js. */
export type Db = PgDatabase<PgQueryResultHKT, Schema, ExtractTablesWithRelations<Schema>>;
export type Tx = PgTransaction<PgQueryResultHKT, Schema, ExtractTablesWithRelations<Schema>>;
/** Anything a query can run on: the database or an open transaction. */
export type Queryable = Db | Tx;

export type DbDriver = "pglite" | "postgres";

export interface DbHandle {
  db: Db;
  driver: DbDriver;
  /** The postgres:// URL when driver is postgres. */
  url?: string;
  /** PGlite only: dumps the data directory (test templates). */
  dumpDataDir?: () => Promise<Blob>;
  close(): Promise<void>;
}

export const MIGRATIONS_FOLDER = path.join(process.cwd(), "db", "migrations");

export interface OpenDbOptions {
  /** postgres:// URL → postgres.js; otherwise PGlite. */
  url?: string;
  /** PGlite data folder; omitted = in memory. */
  dataDir?: string;
  /** postgres.js pool size. */
  maxConnections?: number;
  /** PGlite: start from this dumped data directory (tests restore a migrated template). */
  loadDataDir?: Blob;
}

let queryProbe: ((text: string, connection: number) => void) | undefined;
/** Benchmarks: sees every statement (begin/commit included) of Postgres handles opened afterwards. */
export function setQueryProbe(
  probe: ((text: string, connection: number) => void) | undefined,
): void {
  queryProbe = probe;
}

export async function openDb(opts: OpenDbOptions): Promise<DbHandle> {
  if (opts.url) {
    const { default: postgres } = await import("postgres");
    const { drizzle } = await import("drizzle-orm/postgres-js");
    const client = postgres(opts.url, {
      max: opts.maxConnections ?? 10,
      onnotice: () => {},
      // Our ids are text; dates come back as Date through Drizzle's column mapping.
      connection: { application_name: "sluice" },
      ...(queryProbe ? { debug: (conn: number, text: string) => queryProbe?.(text, conn) } : {}),
    });
    const db = trackCommits(drizzle(client, { schema, casing: "snake_case" }) as unknown as Db);
    return { db, driver: "postgres", url: opts.url, close: () => client.end({ timeout: 5 }) };
  }
  const { PGlite } = await import("@electric-sql/pglite");
  const { drizzle } = await import("drizzle-orm/pglite");
  const client = opts.dataDir
    ? new PGlite(opts.dataDir)
    : new PGlite(opts.loadDataDir ? { loadDataDir: opts.loadDataDir } : {});
  await client.waitReady;
  const db = trackCommits(drizzle(client, { schema, casing: "snake_case" }) as unknown as Db);
  return {
    db,
    driver: "pglite",
    close: () => client.close(),
    dumpDataDir: () => client.dumpDataDir("gzip"),
  };
}

/** Rows of a raw `db.execute(sql)` — postgres.js returns an array, PGlite `{ rows }`. */
export async function execRows<T = Record<string, unknown>>(
  db: Queryable,
  query: SQL,
): Promise<T[]> {
  const res = (await db.execute(query)) as unknown;
  if (Array.isArray(res)) return res as T[];
  return ((res as { rows?: T[] }).rows ?? []) as T[];
}
