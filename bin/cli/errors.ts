import { EXIT, exitForHttpError, type ExitCode } from "./exit-codes";

/**
 * A refusal the CLI reports in its envelope's `error` and its exit code. `code` is the server's
 * (`validation`, `stale_base`, …) or the CLI's own (`usage`, `hash_mismatch`, `not_logged_in`, …).
 */
export class CliError extends Error {
  constructor(
    readonly exit: ExitCode,
    readonly code: string,
    message: string,
    readonly details?: unknown,
    readonly httpStatus?: number,
  ) {
    super(message);
    this.name = "CliError";
  }

  toJSON(): Record<string, unknown> {
    return {
      code: this.code,
      message: this.message,
      ...(this.httpStatus !== undefined ? { httpStatus: this.httpStatus } : {}),
      ...(this.details !== undefined ? { details: this.details } : {}),
    };
  }
}

/** Bad flags or request JSON: exit 10. */
export function usageError(message: string, details?: unknown): CliError {
  return new CliError(EXIT.validation, "usage", message, details);
}

/** An /api/v1 error answer `{ error: { code, message, details } }` (status 0 = no answer). */
export function apiError(status: number, body: unknown, fallback: string): CliError {
  const e = (body as { error?: { code?: unknown; message?: unknown; details?: unknown } } | null)
    ?.error;
  const code = typeof e?.code === "string" ? e.code : status === 0 ? "network" : `http_${status}`;
  const message = typeof e?.message === "string" ? e.message : fallback;
  return new CliError(
    exitForHttpError(status, code, e?.details),
    code,
    message,
    e?.details,
    status,
  );
}

/** Anything unexpected (a bug, a file that cannot be read): exit 40 with its message. */
export function toCliError(e: unknown): CliError {
  if (e instanceof CliError) return e;
  return new CliError(EXIT.internal, "internal", e instanceof Error ? e.message : String(e));
}
