/**
 * Structured logs: one JSON object per line on stdout/stderr. A redactor hook lets the secrets
 * module scrub known secret values (and their encodings) from every line before it is written.
 */
import { newId } from "./ids";

export type LogLevel = "debug" | "info" | "warn" | "error";
const ORDER: Record<LogLevel | "silent", number> = {
  debug: 10,
  info: 20,
  warn: 30,
  error: 40,
  silent: 99,
};

export interface Logger {
  debug(msg: string, fields?: Record<string, unknown>): void;
  info(msg: string, fields?: Record<string, unknown>): void;
  warn(msg: string, fields?: Record<string, unknown>): void;
  error(msg: string, fields?: Record<string, unknown>): void;
  child(fields: Record<string, unknown>): Logger;
}

type Redactor = (line: string) => string;
/** Adds fields derived from a record's own (e.g. a trace id from its runId); never overrides. */
type Enricher = (rec: Readonly<Record<string, unknown>>) => Record<string, unknown> | undefined;
const g = globalThis as typeof globalThis & {
  __sluiceLog?: { level: LogLevel | "silent"; redactors: Set<Redactor>; enrichers?: Set<Enricher> };
};
const state = (g.__sluiceLog ??= { level: "info", redactors: new Set() });
const enrichers = (state.enrichers ??= new Set());

export function setLogLevel(level: LogLevel | "silent"): void {
  state.level = level;
}

/** Registers a function whose fields are added to every record (observability: trace ids). */
export function addLogEnricher(fn: Enricher): () => void {
  enrichers.add(fn);
  return () => enrichers.delete(fn);
}

/** Registers a function applied to every serialized log line (e.g. secret scrubbing). */
export function addLogRedactor(fn: Redactor): () => void {
  state.redactors.add(fn);
  return () => state.redactors.delete(fn);
}

/**
 * What a database error may leave in the logs: its reference fields (SQLSTATE code, constraint,
 * table, column) and the statement's name and field names — never parameter values, row data or
 * the driver's message, which can quote a value ("invalid input syntax for type uuid: \"…\"",
 * "Key (email)=(…) already exists"). Drizzle's "Failed query: … params: …" message is replaced.
 */
interface DbErrorLike {
  query?: unknown;
  params?: unknown;
  parameters?: unknown;
  code?: unknown;
}

function sqlText(e: unknown): string | undefined {
  const q = (e as DbErrorLike | null | undefined)?.query;
  return typeof q === "string" ? q : undefined;
}

function isDbError(e: unknown): boolean {
  if (!e || typeof e !== "object") return false;
  const x = e as DbErrorLike;
  return (
    sqlText(e) !== undefined ||
    "params" in x ||
    "parameters" in x ||
    (e as Error).name === "PostgresError" ||
    (e as Error).name === "DrizzleQueryError" ||
    (typeof x.code === "string" && /^[0-9A-Z]{5}$/.test(x.code))
  );
}

/** `insert into "runs" ("id", "status") values ($1, $2)` → `{ statement: "insert runs", fields: ["id", "status"] }`. */
export function describeStatement(query: string): { statement: string; fields: string[] } {
  const verb = /^\s*(\w+)/.exec(query)?.[1]?.toLowerCase() ?? "sql";
  const table =
    /\b(?:into|update|from|table)\s+(?:only\s+)?((?:"[^"]+"|\w+)(?:\.(?:"[^"]+"|\w+))?)/i
      .exec(query)?.[1]
      ?.replaceAll('"', "");
  const fields = new Set<string>();
  for (const m of query.matchAll(/"([^"]+)"/g)) if (m[1] !== table) fields.add(m[1]!);
  return { statement: table ? `${verb} ${table}` : verb, fields: [...fields].slice(0, 40) };
}

const FAILED_QUERY = /Failed query: ([\s\S]*?)\nparams: [\s\S]*?(?=\n\s+at |$)/g;

/** Drops "params: …" (and the statement text) from Drizzle's failed-query messages in free text. */
export function scrubQueryText(text: string): string {
  return text.replace(
    FAILED_QUERY,
    (_, q: string) => `Failed query (${describeStatement(q).statement})`,
  );
}

function serializeDbCause(c: Record<string, unknown>): Record<string, unknown> {
  const out: Record<string, unknown> = { name: c.name };
  for (const [from, to] of [
    ["code", "code"],
    ["constraint_name", "constraint"],
    ["constraint", "constraint"],
    ["table_name", "table"],
    ["table", "table"],
    ["column_name", "column"],
    ["column", "column"],
    ["routine", "routine"],
  ] as const)
    if (typeof c[from] === "string" && out[to] === undefined) out[to] = c[from];
  return out;
}

function serializeError(e: unknown): unknown {
  if (typeof e === "string") return scrubQueryText(e);
  if (!(e instanceof Error))
    return isDbError(e) ? serializeDbCause(e as Record<string, unknown>) : e;
  const cause = e.cause as Record<string, unknown> | undefined;
  const query = sqlText(e) ?? sqlText(cause);
  if (query !== undefined || isDbError(e)) {
    // The first stack line repeats the message: keep only the frames.
    const frames = (e.stack ?? "").split("\n").filter((l) => /^\s+at /.test(l));
    return {
      name: e.name,
      ...(query !== undefined ? describeStatement(query) : {}),
      ...serializeDbCause(e as unknown as Record<string, unknown>),
      stack: frames.join("\n"),
      ...(cause && typeof cause === "object" ? { cause: serializeDbCause(cause) } : {}),
    };
  }
  // A driver error wrapped by the ORM carries the database's reason (deadlock, timeout…) as its cause.
  return {
    name: e.name,
    message: scrubQueryText(e.message),
    stack: e.stack === undefined ? undefined : scrubQueryText(e.stack),
    ...(cause && typeof cause === "object"
      ? {
          cause: isDbError(cause)
            ? serializeDbCause(cause)
            : {
                name: cause.name,
                message:
                  typeof cause.message === "string" ? scrubQueryText(cause.message) : cause.message,
                code: cause.code,
              },
        }
      : {}),
  };
}

function write(
  level: LogLevel,
  base: Record<string, unknown>,
  msg: string,
  fields?: Record<string, unknown>,
) {
  if (ORDER[level] < ORDER[state.level]) return;
  const rec: Record<string, unknown> = { t: new Date().toISOString(), level, msg, ...base };
  if (fields)
    for (const [k, v] of Object.entries(fields))
      rec[k] = k === "err" || k === "error" ? serializeError(v) : v;
  for (const enrich of enrichers)
    for (const [k, v] of Object.entries(enrich(rec) ?? {})) if (!(k in rec)) rec[k] = v;
  let line: string;
  try {
    line = JSON.stringify(rec);
  } catch {
    line = JSON.stringify({ t: rec.t, level, msg, note: "unserializable log fields" });
  }
  for (const r of state.redactors) line = r(line);
  (level === "error" || level === "warn" ? process.stderr : process.stdout).write(line + "\n");
}

export function createLogger(base: Record<string, unknown> = {}): Logger {
  return {
    debug: (m, f) => write("debug", base, m, f),
    info: (m, f) => write("info", base, m, f),
    warn: (m, f) => write("warn", base, m, f),
    error: (m, f) => write("error", base, m, f),
    child: (f) => createLogger({ ...base, ...f }),
  };
}

export const log = createLogger();

/**
 * Logs an error nobody expected under a fresh reference and returns the reference, for a message
 * the caller can quote to the operator ("Something went wrong on our side (ref …)").
 */
export function logWithRef(
  logger: Logger,
  msg: string,
  err: unknown,
  fields: Record<string, unknown> = {},
): string {
  const ref = newId("ref");
  logger.error(msg, { ...fields, ref, err });
  return ref;
}
