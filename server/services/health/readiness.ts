import "server-only";
import type { Db } from "@/db/client";
import { checkDatabase, checkMigrations, checkOutboxRelay, type CheckResult } from "./checks";

export type { CheckResult } from "./checks";

export type CheckName = "database" | "migrations" | "engine" | "outboxRelay";

export interface Readiness {
  status: "ready" | "not_ready";
  checks: Record<CheckName, CheckResult>;
  /** When these checks ran (answers are cached for about a second). */
  checkedAt: string;
}

export interface ReadinessDeps {
  /** The process database; a rejection (cannot open) fails the database check. */
  db: () => Promise<Db>;
  migrationsFolder: string;
  /** Whether the durable engine (embedded executor or a real Inngest) is reachable. */
  engine: () => Promise<CheckResult>;
  now?: () => number;
  /** A check that takes longer fails (a hung database must not hang the probe). */
  timeoutMs?: number;
}

const DEFAULT_TIMEOUT_MS = 2_000;

function withTimeout(name: string, p: Promise<CheckResult>, ms: number): Promise<CheckResult> {
  let timer: NodeJS.Timeout | undefined;
  const late = new Promise<CheckResult>((resolve) => {
    timer = setTimeout(
      () => resolve({ ok: false, reason: `${name} check timed out after ${ms} ms` }),
      ms,
    );
    timer.unref?.();
  });
  return Promise.race([p, late]).finally(() => clearTimeout(timer));
}

/** Runs every readiness check in parallel; ready only when all pass. */
export async function checkReadiness(deps: ReadinessDeps): Promise<Readiness> {
  const now = deps.now ?? Date.now;
  const ms = deps.timeoutMs ?? DEFAULT_TIMEOUT_MS;
  const dbResult = deps.db().then(
    (db) => ({ db }),
    (e: unknown) => ({ error: e }),
  );
  const onDb = (name: string, f: (db: Db) => Promise<CheckResult>) =>
    withTimeout(
      name,
      dbResult.then((r) =>
        "db" in r ? f(r.db) : { ok: false, reason: `${name}: the database could not be opened` },
      ),
      ms,
    );
  const [database, migrations, engine] = await Promise.all([
    onDb("database", checkDatabase),
    onDb("migrations", (db) => checkMigrations(db, deps.migrationsFolder)),
    withTimeout(
      "engine",
      deps.engine().catch(() => ({ ok: false, reason: "engine check failed" })),
      ms,
    ),
  ]);
  const checks = { database, migrations, engine, outboxRelay: checkOutboxRelay(now()) };
  const ready = Object.values(checks).every((c) => c.ok);
  return {
    status: ready ? "ready" : "not_ready",
    checks,
    checkedAt: new Date(now()).toISOString(),
  };
}

/**
 * Memoises an async probe for `ttlMs` after it settles and shares one in-flight call, so a burst
 * of load balancer probes costs one set of checks a second. A probe that throws is not kept.
 */
export function cachedProbe<T>(
  probe: () => Promise<T>,
  ttlMs = 1_000,
  now: () => number = Date.now,
): () => Promise<T> {
  let settled: { at: number; value: T } | undefined;
  let inflight: Promise<T> | undefined;
  return () => {
    if (settled && now() - settled.at < ttlMs) return Promise.resolve(settled.value);
    inflight ??= probe()
      .then((value) => {
        settled = { at: now(), value };
        return value;
      })
      .finally(() => {
        inflight = undefined;
      });
    return inflight;
  };
}
