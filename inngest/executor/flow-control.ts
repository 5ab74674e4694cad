/**
 * Flow control the executor implements: `concurrency` (limit + optional key, scopes fn/env/account)
 * and `idempotency`. Keys are CEL over the triggering event, evaluated once when the run is
 * created. Concurrency counts SDK calls in flight (a sleeping or waiting run holds no slot, as in
 * Inngest); the claim side lives in queue.ts.
 */
import { sql } from "drizzle-orm";
import { execRows } from "../../db/client";
import type { TxCtx } from "./context";
import { evaluateKey } from "./expressions";
import type { RegisteredFunction } from "./registry";

const IDEMPOTENCY_WINDOW_MS = 24 * 3_600_000;

export function concurrencyGroups(
  c: TxCtx,
  fn: RegisteredFunction,
  event: Record<string, unknown>,
): { keys: string[]; limits: number[] } {
  const keys: string[] = [];
  const limits: number[] = [];
  for (const spec of fn.concurrency) {
    let value = "";
    if (spec.key) {
      const r = evaluateKey(spec.key, { event });
      if (r.ok) value = r.key;
      else
        c.ex.log.warn("concurrency key could not be evaluated; the run joins the unkeyed group", {
          functionId: fn.id,
          key: spec.key,
          error: r.error,
        });
    }
    // fn scope: per function; env/account scope: the key alone, shared by every function using it.
    keys.push(
      spec.scope === "fn" ? `fn:${fn.id}:${spec.key ?? ""}:${value}` : `${spec.scope}:${value}`,
    );
    limits.push(spec.limit);
  }
  return { keys, limits };
}

/**
 * Claims the run's idempotency key for 24 h. Returns the key when this run may start, or
 * `{ duplicateOf }` when another run holds it.
 */
export async function claimIdempotency(
  c: TxCtx,
  fn: RegisteredFunction,
  event: Record<string, unknown>,
  runId: string,
): Promise<{ key?: string; duplicateOf?: string }> {
  if (!fn.idempotency) return {};
  const r = evaluateKey(fn.idempotency, { event });
  if (!r.ok) {
    c.ex.log.warn("idempotency key could not be evaluated; the run starts without one", {
      functionId: fn.id,
      error: r.error,
    });
    return {};
  }
  const expires = new Date(c.now + IDEMPOTENCY_WINDOW_MS).toISOString();
  const now = new Date(c.now).toISOString();
  const claimed = await execRows<{ run_id: string }>(
    c.tx,
    sql`insert into executor_idempotency (function_id, key, run_id, expires_at)
        values (${fn.id}, ${r.key}, ${runId}, ${expires}::timestamptz)
        on conflict (function_id, key) do update set run_id = excluded.run_id, expires_at = excluded.expires_at
          where executor_idempotency.expires_at <= ${now}::timestamptz
        returning run_id`,
  );
  if (claimed.length) return { key: r.key };
  const [holder] = await execRows<{ run_id: string }>(
    c.tx,
    sql`select run_id from executor_idempotency where function_id = ${fn.id} and key = ${r.key}`,
  );
  return { duplicateOf: holder?.run_id ?? "unknown" };
}
