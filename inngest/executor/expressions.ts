/**
 * CEL for trigger `expression`s, `waitForEvent`/`cancelOn` conditions and key expressions
 * (concurrency, idempotency), through the maintained @marcbachmann/cel-js library. Variables:
 * `event` (the run's triggering event, or the candidate event for triggers), `async` (the
 * candidate event for waits and cancellations). Evaluation errors — a missing key, a type
 * mismatch — mean "no match", as in Inngest.
 */
import { Environment } from "@marcbachmann/cel-js";
import { LRUCache } from "lru-cache";
import { canonicalize } from "./jcs";

type Compiled = (vars: Record<string, unknown>) => unknown;

const env = new Environment({ unlistedVariablesAreDyn: true, homogeneousAggregateLiterals: false })
  // Inngest's expression environment adds these string helpers.
  .registerFunction("lowercase(string): string", (s: string) => s.toLowerCase())
  .registerFunction("uppercase(string): string", (s: string) => s.toUpperCase());

const cache = new LRUCache<string, Compiled>({ max: 2_000 });

/** Parses (and caches) an expression; throws a readable error when it is not valid CEL. */
export function compileExpression(expression: string): Compiled {
  let fn = cache.get(expression);
  if (!fn) {
    try {
      fn = env.parse(expression) as unknown as Compiled;
    } catch (e) {
      throw new Error(`invalid expression ${JSON.stringify(expression)}: ${firstLine(e)}`);
    }
    cache.set(expression, fn);
  }
  return fn;
}

/** The reason an expression is not valid CEL, or undefined when it parses. */
export function expressionError(expression: string): string | undefined {
  try {
    compileExpression(expression);
    return undefined;
  } catch (e) {
    return (e as Error).message;
  }
}

/** True only when the expression evaluates to boolean true; any error is a non-match. */
export function matches(expression: string, vars: Record<string, unknown>): boolean {
  try {
    return compileExpression(expression)(vars) === true;
  } catch {
    // Missing keys and type mismatches are ordinary non-matches (documented Inngest behaviour).
    return false;
  }
}

/** A key expression's value as a string, or an error message. */
export function evaluateKey(
  expression: string,
  vars: Record<string, unknown>,
): { ok: true; key: string } | { ok: false; error: string } {
  try {
    const v = compileExpression(expression)(vars);
    if (typeof v === "string") return { ok: true, key: v };
    if (typeof v === "bigint" || typeof v === "number" || typeof v === "boolean")
      return { ok: true, key: String(v) };
    return { ok: true, key: canonicalize(v) };
  } catch (e) {
    return { ok: false, error: firstLine(e) };
  }
}

function firstLine(e: unknown): string {
  return String((e as Error)?.message ?? e).split("\n")[0]!;
}
