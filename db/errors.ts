/** Postgres errors arrive wrapped by Drizzle ("Failed query: …") with the driver error as `cause`. */
export interface PgErrorInfo {
  code?: string;
  message: string;
  constraint?: string;
}

export function pgError(e: unknown): PgErrorInfo | undefined {
  let cur: unknown = e;
  for (let depth = 0; cur && depth < 5; depth++) {
    const c = cur as {
      code?: unknown;
      message?: unknown;
      constraint?: unknown;
      constraint_name?: unknown;
      cause?: unknown;
    };
    if (typeof c.code === "string" && /^[0-9A-Z]{5}$/.test(c.code)) {
      return {
        code: c.code,
        message: String(c.message ?? ""),
        constraint: (c.constraint ?? c.constraint_name) as string | undefined,
      };
    }
    cur = c.cause;
  }
  return undefined;
}

export const isUniqueViolation = (e: unknown, constraint?: string) => {
  const info = pgError(e);
  return info?.code === "23505" && (!constraint || info.constraint === constraint);
};
