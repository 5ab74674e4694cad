import "server-only";
import fs from "node:fs";
import path from "node:path";
import { sql } from "drizzle-orm";
import { execRows, type Db } from "@/db/client";
import { lastRelayBeat, relayRunning } from "../outbox/relay-heartbeat";

/** One readiness check's verdict. `reason` is for operators: it never holds a URL or secret. */
export interface CheckResult {
  ok: boolean;
  reason?: string;
}

/** A relay pass runs at least every second; this much silence means the loop is stuck or failing. */
export const RELAY_STALE_MS = 30_000;

/**
 * Error text fit for an unauthenticated answer: a driver's code or a short first line, with
 * anything URL-like (which could carry a password) and quoted values removed.
 */
export function safeReason(prefix: string, e: unknown): string {
  const err = e as { code?: unknown; message?: unknown; cause?: unknown };
  const code = typeof err?.code === "string" ? err.code : undefined;
  const message = typeof err?.message === "string" ? err.message.split("\n")[0]! : "";
  const cleaned = message
    .replace(/\b[a-z][a-z0-9+.-]*:\/\/\S+/gi, "<url>")
    .replace(/(["'`]).*?\1/g, "<value>")
    .slice(0, 160);
  return [prefix, code, cleaned].filter(Boolean).join(": ");
}

export async function checkDatabase(db: Db): Promise<CheckResult> {
  try {
    await db.execute(sql`select 1`);
    return { ok: true };
  } catch (e) {
    return { ok: false, reason: safeReason("database not reachable", e) };
  }
}

interface Journal {
  entries: { tag: string; when: number }[];
}
const journals = new Map<string, Journal>();

function readJournal(folder: string): Journal {
  let j = journals.get(folder);
  if (!j) {
    j = JSON.parse(fs.readFileSync(path.join(folder, "meta", "_journal.json"), "utf8")) as Journal;
    journals.set(folder, j);
  }
  return j;
}

/**
 * Drizzle's migrator applies every journal entry newer than the newest `created_at` it recorded
 * (the entry's `when`): the same comparison tells which ones are still pending.
 */
export async function checkMigrations(db: Db, migrationsFolder: string): Promise<CheckResult> {
  const journal = readJournal(migrationsFolder);
  let applied: number;
  try {
    const rows = await execRows<{ last: string | number | null }>(
      db,
      sql`select max(created_at) as last from drizzle.__drizzle_migrations`,
    );
    applied = Number(rows[0]?.last ?? 0);
  } catch (e) {
    return { ok: false, reason: safeReason("migration journal not readable", e) };
  }
  const pending = journal.entries.filter((m) => m.when > applied).map((m) => m.tag);
  if (pending.length === 0) return { ok: true };
  return {
    ok: false,
    reason: `${pending.length} migration(s) not applied: ${pending.slice(0, 5).join(", ")}${pending.length > 5 ? ", …" : ""}`,
  };
}

export function checkOutboxRelay(now: number): CheckResult {
  const beat = lastRelayBeat();
  if (beat === undefined) {
    return {
      ok: false,
      reason: relayRunning()
        ? "outbox relay started but has not completed a pass yet"
        : "outbox relay is not running",
    };
  }
  const age = now - beat;
  if (age > RELAY_STALE_MS) {
    return {
      ok: false,
      reason: `outbox relay has not completed a pass for ${Math.round(age / 1000)} s`,
    };
  }
  return { ok: true };
}
