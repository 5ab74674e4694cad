/**
 * Structured logs: one JSON object per line on stdout/stderr. A redactor hook lets the secrets
 * module scrub known secret values (and their encodings) from every line before it is written.
 */
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
const g = globalThis as typeof globalThis & {
  __sluiceLog?: { level: LogLevel | "silent"; redactors: Set<Redactor> };
};
const state = (g.__sluiceLog ??= { level: "info", redactors: new Set() });

export function setLogLevel(level: LogLevel | "silent"): void {
  state.level = level;
}

/** Registers a function applied to every serialized log line (e.g. secret scrubbing). */
export function addLogRedactor(fn: Redactor): () => void {
  state.redactors.add(fn);
  return () => state.redactors.delete(fn);
}

function serializeError(e: unknown): unknown {
  if (e instanceof Error) {
    // A driver error wrapped by the ORM carries the database's reason (deadlock, timeout…) as its cause.
    const cause = e.cause as { name?: unknown; message?: unknown; code?: unknown } | undefined;
    return {
      name: e.name,
      message: e.message,
      stack: e.stack,
      ...(cause && typeof cause === "object"
        ? { cause: { name: cause.name, message: cause.message, code: cause.code } }
        : {}),
    };
  }
  return e;
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
