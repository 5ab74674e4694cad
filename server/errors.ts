import type { z } from "zod";
import { describeZodIssue } from "@/lib/workflow/zod-issues";
import { clip, quote } from "@/lib/workflow/json";

/**
 * The one domain error hierarchy. Services throw these; transports map them in one place
 * (tRPC: server/trpc/init.ts; HTTP: server/http/api.ts). Messages are safe to show to the caller.
 * Anything else reaches clients as a generic message and the logs in full.
 */
export type DomainErrorCode =
  | "NOT_FOUND"
  | "FORBIDDEN"
  | "UNAUTHORIZED"
  | "CONFLICT"
  | "VALIDATION"
  | "PRECONDITION_FAILED"
  | "RATE_LIMITED"
  | "QUOTA_EXCEEDED"
  | "PAYLOAD_TOO_LARGE"
  | "IDEMPOTENCY_KEY_REUSED";

export class DomainError extends Error {
  constructor(
    readonly code: DomainErrorCode,
    message: string,
    readonly details?: unknown,
  ) {
    super(message);
    this.name = new.target.name;
  }
}

export class NotFoundError extends DomainError {
  constructor(what: string, id?: string) {
    super("NOT_FOUND", id ? `${what} ${quote(id)} was not found` : `${what} was not found`);
  }
}

export class ForbiddenError extends DomainError {
  constructor(message = "You are not allowed to do this") {
    super("FORBIDDEN", message);
  }
}

export class UnauthorizedError extends DomainError {
  constructor(message = "Sign in or provide a valid API token") {
    super("UNAUTHORIZED", message);
  }
}

export class ConflictError extends DomainError {
  constructor(message: string, details?: unknown) {
    super("CONFLICT", message, details);
  }
}

export interface ValidationIssueLike {
  path?: (string | number)[];
  message: string;
  [k: string]: unknown;
}

export class ValidationError extends DomainError {
  constructor(
    message: string,
    readonly issues: ValidationIssueLike[] = [],
  ) {
    super("VALIDATION", message, { issues });
  }
}

export class PreconditionFailedError extends DomainError {
  constructor(message: string, details?: unknown) {
    super("PRECONDITION_FAILED", message, details);
  }
}

export class RateLimitedError extends DomainError {
  constructor(
    message: string,
    readonly retryAfterSeconds: number,
  ) {
    super("RATE_LIMITED", message, { retryAfterSeconds });
  }
}

/**
 * The auth throttle refused an attempt (sign-in, invitation, API token): 429 with Retry-After,
 * `too_many_attempts` as the API error code and tRPC `reason`.
 */
export class TooManyAttemptsError extends DomainError {
  constructor(
    message: string,
    readonly retryAfterSeconds: number,
  ) {
    super("RATE_LIMITED", message, { reason: "too_many_attempts", retryAfterSeconds });
  }
}

/**
 * A workspace quota refused the request (lib/quotas/plans.ts). A counted quota that resets (runs
 * per month, webhook requests per minute…) is a 429 with Retry-After until the reset; a standing
 * cap (definitions, steps per run, schedule interval) is a 403. Either way `details` names the
 * limit (`quota`), its value, the usage and the reset time, and the message says them in words.
 */
export class QuotaExceededError extends DomainError {
  constructor(
    readonly quota: string,
    message: string,
    info: { limit: number; used?: number; resetsAt?: Date | null; now?: Date },
  ) {
    const resetsAt = info.resetsAt ?? null;
    const retryAfterSeconds = resetsAt
      ? Math.max(1, Math.ceil((resetsAt.getTime() - (info.now ?? new Date()).getTime()) / 1000))
      : undefined;
    super(resetsAt ? "RATE_LIMITED" : "QUOTA_EXCEEDED", message, {
      reason: "quota_exceeded",
      quota,
      limit: info.limit,
      ...(info.used === undefined ? {} : { used: info.used }),
      ...(resetsAt ? { resetsAt: resetsAt.toISOString(), retryAfterSeconds } : {}),
    });
  }
}

export class PayloadTooLargeError extends DomainError {
  constructor(message: string) {
    super("PAYLOAD_TOO_LARGE", message);
  }
}

/**
 * An idempotency key sent again with a different request (Stripe's rule): answered 422 naming the
 * run the key already belongs to, never silently that run.
 */
export class IdempotencyKeyReusedError extends DomainError {
  constructor(key: string, runId: string) {
    super(
      "IDEMPOTENCY_KEY_REUSED",
      `The idempotency key "${key}" was already used for run ${runId} with a different request; use a new key for a different request`,
      { runId },
    );
  }
}

export const HTTP_STATUS: Record<DomainErrorCode, number> = {
  NOT_FOUND: 404,
  FORBIDDEN: 403,
  UNAUTHORIZED: 401,
  CONFLICT: 409,
  VALIDATION: 400,
  PRECONDITION_FAILED: 412,
  RATE_LIMITED: 429,
  QUOTA_EXCEEDED: 403,
  PAYLOAD_TOO_LARGE: 413,
  IDEMPOTENCY_KEY_REUSED: 422,
};

/**
 * Turns a zod error into a ValidationError whose issues carry JSON paths and whose messages name
 * the limit or the expected form (describeZodIssue). Pass the parsed value as `raw` when at hand,
 * so messages can also say what was sent ("… (got 101)").
 */
export function fromZodError(
  error: { issues: z.core.$ZodIssue[] },
  what = "Input",
  raw?: { value: unknown },
): ValidationError {
  const issues = error.issues.map((i) => describeZodIssue(i, raw));
  const first = issues[0];
  const where = first?.path.length ? ` at ${clip(first.path.join("."))}` : "";
  return new ValidationError(
    `${what} is invalid${where}: ${first?.message ?? "unknown problem"}${issues.length > 1 ? ` (and ${issues.length - 1} more)` : ""}`,
    issues,
  );
}
