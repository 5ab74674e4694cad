/**
 * Reads a function config as the SDK syncs it and decides whether the executor can run it. Every
 * option the executor does not implement makes the function invalid with a message naming it —
 * never silently ignored (an ignored rate limit or debounce would change what the code means).
 */
import { Cron } from "croner";
import { parseSdkDuration } from "./durations";
import { expressionError } from "./expressions";

export type FunctionTrigger = { event: string; expression?: string } | { cron: string };

export interface ConcurrencySpec {
  limit: number;
  key?: string;
  scope: "fn" | "env" | "account";
}

export interface CancelSpec {
  event: string;
  if?: string;
  timeoutMs?: number;
}

export interface FunctionSpec {
  id: string;
  appId: string;
  name?: string;
  /** The function's serve URL (from `steps.step.runtime.url`). */
  url: string;
  /** Attempts per step and per function call: `retries` + 1 (default 4 retries). */
  maxAttempts: number;
  triggers: FunctionTrigger[];
  concurrency: ConcurrencySpec[];
  idempotency?: string;
  cancel: CancelSpec[];
  timeouts: { startMs?: number; finishMs?: number };
}

/** Options and trigger fields the executor implements; anything else is refused. */
const SUPPORTED_KEYS = new Set([
  "id",
  "name",
  "triggers",
  "steps",
  "concurrency",
  "idempotency",
  "cancel",
  "timeouts",
]);
const REFUSED_KEYS: Record<string, string> = {
  batchEvents: "batchEvents (event batching)",
  rateLimit: "rateLimit",
  throttle: "throttle",
  debounce: "debounce",
  priority: "priority",
  singleton: "singleton",
};
const DEFAULT_RETRIES = 4;
const MAX_RETRIES = 20;

export interface ParsedConfig {
  spec: FunctionSpec;
  errors: string[];
}

export function parseFunctionConfig(appId: string, raw: Record<string, unknown>): ParsedConfig {
  const errors: string[] = [];
  const id = String(raw.id ?? "");
  const unsupported = (what: string) =>
    errors.push(
      `${what} is not supported by the embedded executor; remove it or run on Inngest (SLUICE_EXECUTOR=inngest)`,
    );

  for (const [key, value] of Object.entries(raw)) {
    if (value === undefined || value === null) continue;
    if (SUPPORTED_KEYS.has(key)) continue;
    unsupported(REFUSED_KEYS[key] ?? `the option "${key}"`);
  }

  // steps: exactly the one HTTP entry point the JS SDK registers.
  const steps = (raw.steps ?? {}) as Record<
    string,
    { runtime?: { type?: string; url?: string }; retries?: { attempts?: number } }
  >;
  const entry = steps.step;
  let url = "";
  let retries = DEFAULT_RETRIES;
  if (!entry || Object.keys(steps).length !== 1) {
    errors.push(
      `steps must hold exactly one entry named "step" (got ${JSON.stringify(Object.keys(steps))})`,
    );
  } else {
    if (entry.runtime?.type !== "http")
      unsupported(`the "${entry.runtime?.type}" runtime (connect)`);
    url = entry.runtime?.url ?? "";
    if (!url) errors.push("steps.step.runtime.url is missing");
    const attempts = entry.retries?.attempts;
    if (attempts !== undefined) {
      if (!Number.isInteger(attempts) || attempts < 0 || attempts > MAX_RETRIES) {
        errors.push(`retries must be an integer between 0 and ${MAX_RETRIES} (got ${attempts})`);
      } else retries = attempts;
    }
  }

  const triggers: FunctionTrigger[] = [];
  for (const [i, t] of ((raw.triggers ?? []) as Array<Record<string, unknown>>).entries()) {
    if (typeof t.cron === "string") {
      if (t.jitter !== undefined) unsupported(`triggers[${i}].jitter (cron jitter)`);
      const cronError = cronExpressionError(t.cron);
      if (cronError) errors.push(`triggers[${i}].cron: ${cronError}`);
      triggers.push({ cron: t.cron });
    } else if (typeof t.event === "string") {
      const expression =
        typeof t.expression === "string" && t.expression.trim() ? t.expression : undefined;
      if (expression) {
        const err = expressionError(expression);
        if (err) errors.push(`triggers[${i}].expression: ${err}`);
      }
      triggers.push({ event: t.event, expression });
    } else {
      errors.push(`triggers[${i}] is neither an event nor a cron trigger: ${JSON.stringify(t)}`);
    }
  }

  const concurrency: ConcurrencySpec[] = [];
  const rawConcurrency = raw.concurrency;
  const list =
    rawConcurrency === undefined || rawConcurrency === null
      ? []
      : typeof rawConcurrency === "number"
        ? [{ limit: rawConcurrency }]
        : Array.isArray(rawConcurrency)
          ? rawConcurrency
          : [rawConcurrency];
  for (const [i, c] of (list as Array<Record<string, unknown>>).entries()) {
    const limit = Number(c.limit);
    const scope = (c.scope as ConcurrencySpec["scope"]) ?? "fn";
    if (!Number.isInteger(limit) || limit < 0) {
      errors.push(`concurrency[${i}].limit must be a non-negative integer`);
      continue;
    }
    if (!["fn", "env", "account"].includes(scope))
      errors.push(`concurrency[${i}].scope "${scope}" is unknown`);
    const key = typeof c.key === "string" && c.key.trim() ? c.key : undefined;
    if (key) {
      const err = expressionError(key);
      if (err) errors.push(`concurrency[${i}].key: ${err}`);
    }
    if (scope !== "fn" && !key) errors.push(`concurrency[${i}]: scope "${scope}" needs a key`);
    // limit 0 means "no limit" in Inngest.
    if (limit > 0) concurrency.push({ limit, key, scope });
  }

  let idempotency: string | undefined;
  if (typeof raw.idempotency === "string" && raw.idempotency.trim()) {
    idempotency = raw.idempotency;
    const err = expressionError(idempotency);
    if (err) errors.push(`idempotency: ${err}`);
  }

  const cancel: CancelSpec[] = [];
  for (const [i, c] of ((raw.cancel ?? []) as Array<Record<string, unknown>>).entries()) {
    if (typeof c.event !== "string") {
      errors.push(`cancel[${i}].event is missing`);
      continue;
    }
    const spec: CancelSpec = { event: c.event };
    if (typeof c.if === "string" && c.if.trim()) {
      const err = expressionError(c.if);
      if (err) errors.push(`cancel[${i}].if: ${err}`);
      spec.if = c.if;
    }
    if (typeof c.timeout === "string") {
      const ms = parseSdkDuration(c.timeout);
      if (ms === undefined) errors.push(`cancel[${i}].timeout "${c.timeout}" is not a duration`);
      else spec.timeoutMs = ms;
    }
    cancel.push(spec);
  }

  const timeouts: FunctionSpec["timeouts"] = {};
  const rawTimeouts = (raw.timeouts ?? {}) as Record<string, unknown>;
  for (const [key, field] of [
    ["start", "startMs"],
    ["finish", "finishMs"],
  ] as const) {
    const v = rawTimeouts[key];
    if (v === undefined || v === null) continue;
    const ms = typeof v === "string" ? parseSdkDuration(v) : undefined;
    if (ms === undefined || ms <= 0)
      errors.push(`timeouts.${key} "${String(v)}" is not a positive duration`);
    else timeouts[field] = ms;
  }
  for (const key of Object.keys(rawTimeouts)) {
    if (key !== "start" && key !== "finish") unsupported(`timeouts.${key}`);
  }

  return {
    spec: {
      id,
      appId,
      name: typeof raw.name === "string" ? raw.name : undefined,
      url,
      maxAttempts: retries + 1,
      triggers,
      concurrency,
      idempotency,
      cancel,
      timeouts,
    },
    errors,
  };
}

/** Splits Inngest's `TZ=Area/City <expr>` prefix from a cron expression. */
export function parseCron(text: string): { expression: string; timezone?: string } {
  const m = text.trim().match(/^(?:CRON_)?TZ=(\S+)\s+(.+)$/);
  return m ? { expression: m[2]!.trim(), timezone: m[1] } : { expression: text.trim() };
}

export function cronExpressionError(text: string): string | undefined {
  try {
    const { expression, timezone } = parseCron(text);
    // A paused Cron only parses; it never schedules a timer.
    new Cron(expression, { timezone, paused: true });
    return undefined;
  } catch (e) {
    return `invalid cron ${JSON.stringify(text)}: ${(e as Error).message}`;
  }
}
