import { createLogger } from "../lib/log";
import type { Db, Queryable, Tx } from "./client";

/**
 * Work that may only happen once a transaction's writes are visible to others (wake a worker for
 * a job it inserted): `afterCommit(tx, fn)` runs `fn` after the outermost transaction commits, and
 * never if it rolls back (nor if the savepoint that registered it does). Hooks must not throw; an
 * error is reported, never turned into a failure of a transaction that already committed.
 */
const hooksOf = new WeakMap<object, Array<() => void>>();

export function afterCommit(q: Queryable, fn: () => void): void {
  const hooks = hooksOf.get(q);
  if (hooks) hooks.push(fn);
  // The database itself (autocommit: the statement already committed), or a transaction opened
  // on a handle that was not tracked: run it once the caller's current statement settled.
  else setTimeout(() => runHook(fn), 0);
}

/** Makes `db.transaction` (and savepoints inside it) collect and run `afterCommit` hooks. */
export function trackCommits(db: Db): Db {
  const begin = db.transaction.bind(db);
  db.transaction = (async (fn: (tx: Tx) => Promise<unknown>, config?: unknown) => {
    const hooks: Array<() => void> = [];
    const result = await begin((tx) => fn(track(tx, hooks)), config as Parameters<typeof begin>[1]);
    for (const h of hooks) runHook(h);
    return result;
  }) as Db["transaction"];
  return db;
}

function track(tx: Tx, hooks: Array<() => void>): Tx {
  hooksOf.set(tx, hooks);
  const savepoint = tx.transaction.bind(tx);
  tx.transaction = (async (fn: (sp: Tx) => Promise<unknown>) =>
    savepoint(async (sp) => {
      const inner: Array<() => void> = [];
      const result = await fn(track(sp, inner));
      // Released (not rolled back): its hooks now belong to the enclosing transaction.
      hooks.push(...inner);
      return result;
    })) as Tx["transaction"];
  return tx;
}

function runHook(fn: () => void): void {
  try {
    fn();
  } catch (e) {
    createLogger({ component: "db" }).error("after-commit hook failed", { err: e });
  }
}
