import "server-only";
import { logWithRef } from "@/lib/log";
import { initTRPC, TRPCError } from "@trpc/server";
import type { TRPC_ERROR_CODE_KEY } from "@trpc/server/rpc";
import superjson from "superjson";
import { ZodError } from "zod";
import { hasRole, type Role } from "@/lib/schemas/roles";
import { describePath, unstorableText } from "@/lib/storable-text";
import { DomainError, ValidationError, fromZodError, type DomainErrorCode } from "../errors";
import type { ServiceContext } from "../services/context";

export interface TrpcContext {
  svc: ServiceContext;
}

const TRPC_CODE: Record<DomainErrorCode, TRPC_ERROR_CODE_KEY> = {
  NOT_FOUND: "NOT_FOUND",
  FORBIDDEN: "FORBIDDEN",
  UNAUTHORIZED: "UNAUTHORIZED",
  CONFLICT: "CONFLICT",
  VALIDATION: "BAD_REQUEST",
  PRECONDITION_FAILED: "PRECONDITION_FAILED",
  RATE_LIMITED: "TOO_MANY_REQUESTS",
  QUOTA_EXCEEDED: "FORBIDDEN",
  PAYLOAD_TOO_LARGE: "PAYLOAD_TOO_LARGE",
  IDEMPOTENCY_KEY_REUSED: "UNPROCESSABLE_CONTENT",
};

const t = initTRPC.context<TrpcContext>().create({
  transformer: superjson,
  errorFormatter({ shape, error }) {
    const cause = error.cause;
    const domain = cause instanceof DomainError ? cause : undefined;
    const zod = cause instanceof ZodError ? cause : undefined;
    // Input errors arrive here as ValidationErrors (mapErrors); a bare ZodError is a fallback.
    const fromZod = zod ? fromZodError(zod) : undefined;
    const issues = ((domain ?? fromZod)?.details as { issues?: unknown } | undefined)?.issues;
    const message = fromZod?.message ?? shape.message;
    return {
      ...shape,
      message,
      data: {
        code: shape.data.code,
        httpStatus: shape.data.httpStatus,
        path: shape.data.path,
        domainCode: domain?.code,
        /** The exact rule a refusal names (e.g. STALE_BASE, SELF_REVIEW), when the error has one. */
        reason: (domain?.details as { reason?: string } | undefined)?.reason,
        /** The quota a QuotaExceededError names, and when it resets (if it does). */
        quota: (domain?.details as { quota?: string } | undefined)?.quota,
        resetsAt: (domain?.details as { resetsAt?: string } | undefined)?.resetsAt,
        issues,
      },
    };
  },
});

/**
 * The one mapping from domain errors to tRPC errors. Unknown errors are logged in full and reach
 * the client as a generic message with a reference the operator can find in the logs.
 */
const mapErrors = t.middleware(async ({ ctx, next, path, getRawInput }) => {
  const result = await next();
  if (result.ok) return result;
  const err = result.error;
  // An input that failed its schema: described with what was sent, like /api/v1 bodies.
  const cause =
    err.code === "BAD_REQUEST" && err.cause instanceof ZodError
      ? fromZodError(err.cause, "Input", { value: await getRawInput() })
      : err.cause;
  if (cause instanceof DomainError) {
    throw new TRPCError({ code: TRPC_CODE[cause.code], message: cause.message, cause });
  }
  if (err.code === "INTERNAL_SERVER_ERROR") {
    const ref = logWithRef(ctx.svc.log, "trpc procedure failed", cause ?? err, { path });
    throw new TRPCError({
      code: "INTERNAL_SERVER_ERROR",
      message: `Something went wrong on our side (ref ${ref})`,
    });
  }
  return result;
});

/**
 * HTTP response meta for the tRPC route: a refusal that carries a retry time (rate limits, quotas
 * that reset) sends it as Retry-After, as the REST API does.
 */
export function responseMeta({ errors }: { errors: TRPCError[] }): { headers?: Headers } {
  for (const e of errors) {
    const retry =
      e.cause instanceof DomainError
        ? (e.cause.details as { retryAfterSeconds?: number } | undefined)?.retryAfterSeconds
        : undefined;
    if (retry !== undefined)
      return { headers: new Headers({ "retry-after": String(Math.max(1, Math.ceil(retry))) }) };
  }
  return {};
}

export const router = t.router;
export const createCallerFactory = t.createCallerFactory;

/**
 * Text Postgres cannot store (NUL, lone surrogates) is refused at the door with the field's path,
 * whatever the procedure, instead of surfacing as a driver error (a 500) deep in a service.
 */
const storableInput = t.middleware(async ({ next, getRawInput }) => {
  const problem = unstorableText(await getRawInput());
  if (problem)
    throw new ValidationError(
      `Invalid input at ${describePath(problem.path)}: ${problem.message}`,
      [{ path: problem.path, message: problem.message }],
    );
  return next();
});

export const publicProcedure = t.procedure.use(mapErrors).use(storableInput);

/** Requires a signed-in user (any workspace state). */
export const authedProcedure = publicProcedure.use(({ ctx, next }) => {
  if (ctx.svc.actor.type === "anonymous")
    throw new TRPCError({ code: "UNAUTHORIZED", message: "Sign in first" });
  return next();
});

/** Requires a current workspace where the user holds at least `minimum`. */
export function roleProcedure(minimum: Role) {
  return authedProcedure.use(({ ctx, next }) => {
    const ws = ctx.svc.workspace;
    if (!ws) throw new TRPCError({ code: "FORBIDDEN", message: "Select a workspace first" });
    if (!hasRole(ws.role, minimum)) {
      throw new TRPCError({
        code: "FORBIDDEN",
        message: `This needs the ${minimum} role or higher; you are ${ws.role}`,
      });
    }
    return next();
  });
}
