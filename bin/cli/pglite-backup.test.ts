/**
 * Issue 30: `sluice backup` / `sluice restore` on a real PGlite folder — back up, write more,
 * restore, see the old state; refusals: a non-empty target without --force, a running app (a
 * local server answering /api/health), a file that is not a backup.
 */
import fs from "node:fs";
import http from "node:http";
import os from "node:os";
import path from "node:path";
import { PGlite } from "@electric-sql/pglite";
import { afterAll, beforeAll, describe, expect, it, vi } from "vitest";
import { main } from "./main";

let tmp: string;
let dataDir: string;
let closedPort: string;
// Every step opens a PGlite on disk (initdb for the first): seconds each, minutes on a loaded machine.
const SLOW = 600_000;

async function withDb<T>(f: (db: PGlite) => Promise<T>): Promise<T> {
  const db = new PGlite(path.join(dataDir, "pglite"));
  await db.waitReady;
  try {
    return await f(db);
  } finally {
    await db.close();
  }
}
const names = () =>
  withDb(async (db) =>
    (await db.query<{ name: string }>("select name from notes order by id")).rows.map(
      (r) => r.name,
    ),
  );

/** Runs the CLI in-process; returns its exit code and the JSON envelope it printed. */
async function cli(argv: string[]): Promise<{ code: number; out: Record<string, unknown> }> {
  const chunks: string[] = [];
  const spy = vi.spyOn(process.stdout, "write").mockImplementation((c) => {
    chunks.push(String(c));
    return true;
  });
  try {
    const code = await main(argv);
    return { code, out: JSON.parse(chunks.join("")) as Record<string, unknown> };
  } finally {
    spy.mockRestore();
  }
}

beforeAll(async () => {
  tmp = fs.mkdtempSync(path.join(os.tmpdir(), "sluice-backup-"));
  dataDir = path.join(tmp, "data");
  fs.mkdirSync(dataDir);
  fs.writeFileSync(path.join(dataDir, "master.key"), "k\n");
  // A port nothing listens on: "the app is stopped".
  const s = http.createServer();
  await new Promise<void>((r) => s.listen(0, "127.0.0.1", r));
  closedPort = String((s.address() as { port: number }).port);
  await new Promise<void>((r) => s.close(() => r()));
  await withDb(async (db) => {
    await db.exec("create table notes (id serial primary key, name text not null)");
    await db.exec("insert into notes (name) values ('before backup')");
  });
}, SLOW);
afterAll(() => fs.rmSync(tmp, { recursive: true, force: true }));

describe("sluice backup / restore", () => {
  it(
    "restores the state of the backup over later writes (with --force), keeping the old folder",
    async () => {
      const file = path.join(tmp, "sluice.tar.gz");
      const backup = await cli(["backup", file, "--data-dir", dataDir, "--port", closedPort]);
      expect(backup.code).toBe(0);
      expect(backup.out).toMatchObject({
        ok: true,
        file,
        database: path.join(dataDir, "pglite"),
        masterKey: path.join(dataDir, "master.key"),
      });
      expect(fs.statSync(file).size).toBe(backup.out.bytes);

      await withDb((db) => db.exec("insert into notes (name) values ('after backup')"));

      const refused = await cli(["restore", file, "--data-dir", dataDir, "--port", closedPort]);
      expect(refused.code).toBe(10);
      expect(refused.out).toMatchObject({ ok: false, error: { code: "target_not_empty" } });
      expect(await names()).toEqual(["before backup", "after backup"]);

      const restored = await cli([
        "restore",
        file,
        "--data-dir",
        dataDir,
        "--port",
        closedPort,
        "--force",
      ]);
      expect(restored.code).toBe(0);
      expect(await names()).toEqual(["before backup"]);
      const replaced = restored.out.replaced as string;
      expect(replaced).toMatch(/pglite\.replaced-/);
      expect(fs.readdirSync(replaced).length).toBeGreaterThan(0);
    },
    SLOW,
  );

  it(
    "restores into an empty data folder without --force",
    async () => {
      const file = path.join(tmp, "again.tar.gz");
      expect((await cli(["backup", file, "--data-dir", dataDir, "--port", closedPort])).code).toBe(
        0,
      );
      const fresh = path.join(tmp, "fresh");
      const r = await cli(["restore", file, "--data-dir", fresh, "--port", closedPort]);
      expect(r.code).toBe(0);
      const db = new PGlite(path.join(fresh, "pglite"));
      await db.waitReady;
      expect((await db.query("select name from notes")).rows).toEqual([{ name: "before backup" }]);
      await db.close();
    },
    SLOW,
  );

  it(
    "refuses while the app answers /api/health, and refuses a file that is not a backup",
    async () => {
      const app = http.createServer((req, res) =>
        res.writeHead(req.url === "/api/health" ? 200 : 404).end('{"status":"ok"}'),
      );
      await new Promise<void>((r) => app.listen(0, "127.0.0.1", r));
      const port = String((app.address() as { port: number }).port);
      try {
        const r = await cli([
          "backup",
          path.join(tmp, "x.tar.gz"),
          "--data-dir",
          dataDir,
          "--port",
          port,
        ]);
        expect(r.code).toBe(20);
        expect(r.out).toMatchObject({ ok: false, error: { code: "app_running" } });
        expect(fs.existsSync(path.join(tmp, "x.tar.gz"))).toBe(false);
      } finally {
        await new Promise<void>((r) => app.close(() => r()));
      }
      const junk = path.join(tmp, "junk.tar.gz");
      fs.writeFileSync(junk, "not a backup");
      const bad = await cli([
        "restore",
        junk,
        "--data-dir",
        path.join(tmp, "other"),
        "--port",
        closedPort,
      ]);
      expect(bad.code).toBe(10);
      expect(bad.out).toMatchObject({ ok: false, error: { code: "invalid_file" } });
      const none = await cli([
        "backup",
        junk,
        "--data-dir",
        path.join(tmp, "nothing"),
        "--port",
        closedPort,
      ]);
      expect(none.code).toBe(10);
    },
    SLOW,
  );
});
