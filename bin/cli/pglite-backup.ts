import fs from "node:fs";
import path from "node:path";
import { CliError, usageError } from "./errors";
import { EXIT } from "./exit-codes";

/**
 * Backup and restore of the embedded database (the PGlite folder `<data dir>/pglite`), with the
 * app stopped. A backup is PGlite's own `dumpDataDir("gzip")`: a tar.gz of the data directory
 * taken by a PGlite that has the folder open (so it is consistent), restored with `loadDataDir`
 * into a fresh folder. PGlite is one process: opening the folder while the app runs loses writes,
 * hence the check that nothing answers on the app's port first.
 */

export interface BackupOptions {
  dataDir: string;
  /** The app's origin; when its /api/health answers, the app is running and we refuse. */
  appUrl: string;
  force?: boolean;
}

export function pgliteFolder(dataDir: string): string {
  return path.resolve(dataDir, "pglite");
}

function isNonEmptyDir(dir: string): boolean {
  try {
    return fs.readdirSync(dir).length > 0;
  } catch (e) {
    if ((e as NodeJS.ErrnoException).code === "ENOENT") return false;
    throw e;
  }
}

/** Refuses while a Sluice answers on `appUrl` (PGlite cannot share its folder with the app). */
export async function assertAppStopped(appUrl: string): Promise<void> {
  let running = false;
  try {
    const res = await fetch(new URL("/api/health", appUrl), { signal: AbortSignal.timeout(1_500) });
    await res.body?.cancel();
    running = res.ok;
  } catch {
    running = false; // nothing listening: stopped
  }
  if (running)
    throw new CliError(
      EXIT.contract,
      "app_running",
      `Sluice is running at ${new URL(appUrl).origin}: stop the app first (PGlite is one process; a second one on its folder loses writes)`,
    );
}

async function openPglite(dir: string, loadDataDir?: Blob) {
  const { PGlite } = await import("@electric-sql/pglite");
  const db = new PGlite(dir, loadDataDir ? { loadDataDir } : {});
  await db.waitReady;
  return db;
}

export async function backupPglite(file: string, o: BackupOptions) {
  const dir = pgliteFolder(o.dataDir);
  if (!isNonEmptyDir(dir))
    throw usageError(`No embedded database at ${dir} (set --data-dir or SLUICE_DATA_DIR)`);
  const target = path.resolve(file);
  if (fs.existsSync(target) && !o.force)
    throw usageError(`${target} exists: pass --force to overwrite it`);
  await assertAppStopped(o.appUrl);
  const db = await openPglite(dir);
  let dump: Blob;
  try {
    dump = await db.dumpDataDir("gzip");
  } finally {
    await db.close();
  }
  const bytes = Buffer.from(await dump.arrayBuffer());
  // Written beside the target and renamed: a crash never leaves half a backup under its name.
  const tmp = `${target}.partial-${process.pid}`;
  fs.writeFileSync(tmp, bytes, { mode: 0o600 });
  fs.renameSync(tmp, target);
  const masterKey = path.resolve(o.dataDir, "master.key");
  return {
    ok: true,
    file: target,
    bytes: bytes.length,
    database: dir,
    masterKey: fs.existsSync(masterKey) ? masterKey : null,
    note: "The backup holds the database only. Keep the master key (SLUICE_SECRET, or the masterKey file) safe and apart: secrets in the backup decrypt only with it.",
  };
}

const GZIP = [0x1f, 0x8b];

export async function restorePglite(file: string, o: BackupOptions) {
  const source = path.resolve(file);
  let bytes: Buffer;
  try {
    bytes = fs.readFileSync(source);
  } catch (e) {
    throw new CliError(
      EXIT.validation,
      "invalid_file",
      `Cannot read ${source}: ${(e as Error).message}`,
    );
  }
  if (bytes[0] !== GZIP[0] || bytes[1] !== GZIP[1])
    throw new CliError(
      EXIT.validation,
      "invalid_file",
      `${source} is not a backup made by \`sluice backup\` (not gzip)`,
    );
  const dir = pgliteFolder(o.dataDir);
  if (isNonEmptyDir(dir) && !o.force)
    throw new CliError(
      EXIT.validation,
      "target_not_empty",
      `${dir} already holds a database: pass --force to replace it (it is kept, renamed, not deleted)`,
    );
  await assertAppStopped(o.appUrl);
  // Loaded into a fresh sibling folder, checked, then swapped in: a bad file leaves the old one.
  const staging = `${dir}.restoring-${process.pid}`;
  fs.rmSync(staging, { recursive: true, force: true });
  fs.mkdirSync(staging, { recursive: true });
  try {
    const db = await openPglite(staging, new Blob([new Uint8Array(bytes)]));
    try {
      await db.query("select 1");
    } finally {
      await db.close();
    }
  } catch (e) {
    fs.rmSync(staging, { recursive: true, force: true });
    throw new CliError(
      EXIT.validation,
      "invalid_file",
      `${source} could not be restored: ${(e as Error).message}`,
    );
  }
  let replaced: string | null = null;
  if (fs.existsSync(dir)) {
    if (isNonEmptyDir(dir)) {
      replaced = `${dir}.replaced-${new Date().toISOString().replace(/[:.]/g, "-")}`;
      fs.renameSync(dir, replaced);
    } else fs.rmdirSync(dir);
  }
  fs.renameSync(staging, dir);
  return { ok: true, file: source, database: dir, replaced };
}
