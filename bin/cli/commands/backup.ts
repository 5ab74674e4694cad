import { backupPglite, restorePglite, type BackupOptions } from "../pglite-backup";
import type { Command } from "../command";
import { usageError } from "../errors";
import { EXIT } from "../exit-codes";
import { printEnvelope } from "../io";
import { str, type ParsedArgs } from "../args";

type Env = Record<string, string | undefined>;

const OPTIONS = {
  "data-dir": { type: "string" },
  port: { type: "string" },
  force: { type: "boolean" },
} as const;

/** --data-dir, else SLUICE_DATA_DIR, else ./.data (the app's default); the port likewise. */
function options(args: ParsedArgs, env: Env): BackupOptions {
  const dataDir = str(args.values, "data-dir") ?? env.SLUICE_DATA_DIR ?? "./.data";
  const port = str(args.values, "port") ?? env.PORT ?? "3000";
  if (!/^\d{1,5}$/.test(port)) throw usageError(`--port: "${port}" is not a port number`);
  return { dataDir, appUrl: `http://127.0.0.1:${port}`, force: Boolean(args.values.force) };
}

function file(args: ParsedArgs, verb: string): string {
  const f = args.positionals[0];
  if (!f) throw usageError(`Say which file: sluice ${verb} <file>`);
  return f;
}

const COMMON_HELP = `The app must be stopped: the embedded database (PGlite) is one process, and a
second one on its folder loses writes. Both commands refuse while something answers
/api/health on the app's port (--port, PORT, 3000).

Options:
  --data-dir <dir>  the data folder (default: SLUICE_DATA_DIR, else ./.data)
  --port <n>        the app's port, to check it is stopped (default: PORT, else 3000)
  --force           ${"{force}"}

For Postgres (DATABASE_URL), use pg_dump / pg_restore: docs/operations.md.`;

export function makeBackupCommand(env: Env = process.env): Command {
  return {
    name: "backup",
    summary: "Back up the embedded database (app stopped) to a file",
    help: `Usage: sluice backup <file> [--data-dir <dir>] [--port <n>] [--force]

Writes the embedded database (<data dir>/pglite) to <file>, a tar.gz made by PGlite's
dumpDataDir, and prints { ok, file, bytes, database, masterKey, note }. The backup does not
contain the master key (<data dir>/master.key or SLUICE_SECRET): keep it safe and apart.

${COMMON_HELP.replace("{force}", "overwrite <file> if it exists")}

Exit codes: 0 written, 10 no database or <file> exists, 20 the app is running, 40 other errors.`,
    options: OPTIONS,
    maxPositionals: 1,
    async run(args) {
      printEnvelope(await backupPglite(file(args, "backup"), options(args, env)));
      return EXIT.ok;
    },
  };
}

export function makeRestoreCommand(env: Env = process.env): Command {
  return {
    name: "restore",
    summary: "Restore the embedded database (app stopped) from a backup file",
    help: `Usage: sluice restore <file> [--data-dir <dir>] [--port <n>] [--force]

Loads a file written by \`sluice backup\` into <data dir>/pglite and prints
{ ok, file, database, replaced }. Refuses when that folder already holds a database unless
--force, which keeps the old folder renamed (replaced) rather than deleting it. The file is
loaded and checked in a fresh folder first: a bad file leaves the current database alone.

${COMMON_HELP.replace("{force}", "replace an existing database (kept as <data dir>/pglite.replaced-<time>)")}

Exit codes: 0 restored, 10 unreadable file or a database is there (no --force), 20 the app
is running, 40 other errors.`,
    options: OPTIONS,
    maxPositionals: 1,
    async run(args) {
      printEnvelope(await restorePglite(file(args, "restore"), options(args, env)));
      return EXIT.ok;
    },
  };
}

export const backupCommand = makeBackupCommand();
export const restoreCommand = makeRestoreCommand();
