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

/**
 * Writes that must be the last thing a transaction does (the history chain takes its
 * per-workspace lock there, after every other lock, so no lock-order deadlock can involve it):
 * `beforeCommit(tx, fn)` runs `fn(outermostTx)` inside the outermost transaction right before it commits
 * (dropped with a rolled-back savepoint). Returns false when `q` is no tracked transaction — the
 * caller then does the work itself. An error thrown by `fn` rolls the transaction back.
 */
type PreCommitHook = (tx: Tx) => Promise<void>;
const preHooksOf = new WeakMap<object, PreCommitHook[]>();

export function beforeCommit(q: Queryable, fn: PreCommitHook): boolean {
  const hooks = preHooksOf.get(q);
  if (!hooks) return false;
  hooks.push(fn);
  return true;
}

/** Makes `db.transaction` (and savepoints inside it) collect and run `afterCommit` hooks. */
export function trackCommits(db: Db): Db {
  const begin = db.transaction.bind(db);
  db.transaction = (async (fn: (tx: Tx) => Promise<unknown>, config?: unknown) => {
    const hooks: Array<() => void> = [];
    const result = await begin(
      async (tx) => {
        const pre: PreCommitHook[] = [];
        const value = await fn(track(tx, hooks, pre));
        // A hook may register another one (in order); each runs once.
        for (let i = 0; i < pre.length; i++) await pre[i]!(tx);
        return value;
      },
      config as Parameters<typeof begin>[1],
    );
    for (const h of hooks) runHook(h);
    return result;
  }) as Db["transaction"];
  return db;
}

function track(tx: Tx, hooks: Array<() => void>, pre: PreCommitHook[]): Tx {
  hooksOf.set(tx, hooks);
  preHooksOf.set(tx, pre);
  const savepoint = tx.transaction.bind(tx);
  tx.transaction = (async (fn: (sp: Tx) => Promise<unknown>) =>
    savepoint(async (sp) => {
      const inner: Array<() => void> = [];
      const innerPre: PreCommitHook[] = [];
      const result = await fn(track(sp, inner, innerPre));
      // Released (not rolled back): its hooks now belong to the enclosing transaction.
      hooks.push(...inner);
      pre.push(...innerPre);
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
