import "server-only";
import { logWithRef } from "@/lib/log";
import { hasRole, type Role } from "@/lib/schemas/roles";
import { contextFromBearer } from "../context";
import { requestClient } from "./client-address";
import {
  DomainError,
  ForbiddenError,
  HTTP_STATUS,
  PayloadTooLargeError,
  TooManyAttemptsError,
  UnauthorizedError,
  ValidationError,
} from "../errors";
import { getRuntime } from "../runtime";
import type { ServiceContext } from "../services/context";
import { PROPOSAL_HTTP_STATUS, ProposalError } from "../services/proposals/errors";
import { deepJsonRefusal } from "@/lib/json-depth";
import { readBodyCapped } from "@/lib/server-only/read-body";
import { describePath, unstorableText } from "@/lib/storable-text";

type Params = Record<string, string | string[]>;
export interface ApiArgs<P extends Params> {
  ctx: ServiceContext;
  req: Request;
  params: P;
}

/** JSON error body used by every /api/v1 route: `{ error: { code, message, details? } }`. */
export function errorResponse(
  status: number,
  code: string,
  message: string,
  details?: unknown,
  headers?: HeadersInit,
): Response {
  return Response.json(
    { error: { code, message, ...(details === undefined ? {} : { details }) } },
    { status, headers },
  );
}

export function domainErrorResponse(e: unknown): Response {
  // A proposal refusal answers with its own status and code (`409 stale_base`, `410 expired`…).
  if (e instanceof ProposalError)
    return errorResponse(
      PROPOSAL_HTTP_STATUS[e.reason],
      e.reason.toLowerCase(),
      e.message,
      e.details,
    );
  if (e instanceof DomainError) {
    const headers: Record<string, string> = {};
    if (e.code === "UNAUTHORIZED") headers["www-authenticate"] = 'Bearer realm="sluice"';
    const retry = (e.details as { retryAfterSeconds?: number } | undefined)?.retryAfterSeconds;
    if (retry !== undefined) headers["retry-after"] = String(Math.max(1, Math.ceil(retry)));
    const code = e instanceof TooManyAttemptsError ? "too_many_attempts" : e.code.toLowerCase();
    return errorResponse(HTTP_STATUS[e.code], code, e.message, e.details, headers);
  }
  const ref = logWithRef(getRuntime().log, "api route failed", e);
  return errorResponse(500, "internal", `Something went wrong on our side (ref ${ref})`);
}

/**
 * The service context of an /api/v1 request: authenticates the bearer token and enforces the
 * minimum role (`null` = a public operation: an anonymous context, the token is not read).
 */
export async function authenticateRequest(
  req: Request,
  minRole: Role | null,
): Promise<ServiceContext> {
  const client = requestClient(req.headers);
  if (minRole === null) return contextFromBearer(null, client);
  const ctx = await contextFromBearer(req.headers.get("authorization"), client);
  if (ctx.actor.type === "anonymous" || !ctx.workspace)
    throw new UnauthorizedError("A valid API token is required (Authorization: Bearer slu_…)");
  if (!hasRole(ctx.workspace.role, minRole)) {
    throw new ForbiddenError(
      `This needs a token with the ${minRole} role or higher; this token acts as ${ctx.workspace.role}`,
    );
  }
  return ctx;
}

/**
 * Wraps an /api/v1 route handler: authenticates the API token, enforces the minimum role, maps
 * domain errors to JSON. Handlers stay adapters: parse, call one service verb, return.
 * New routes use `endpoint()` (server/http/endpoint.ts), which also parses with the operation's
 * zod schemas and feeds the OpenAPI document.
 */
export function apiRoute<P extends Params = Params>(
  opts: { minRole: Role },
  handler: (args: ApiArgs<P>) => Promise<unknown>,
) {
  return async (req: Request, routeCtx: { params: Promise<P> }): Promise<Response> => {
    try {
      const ctx = await authenticateRequest(req, opts.minRole);
      const params = await routeCtx.params;
      refuseUnstorable(params, "Path");
      const result = await handler({ ctx, req, params });
      if (result instanceof Response) return result;
      return Response.json(result ?? { ok: true });
    } catch (e) {
      return domainErrorResponse(e);
    }
  };
}

/** The body cap of every JSON surface (/api/v1, /api/trpc) unless an operation documents more. */
export const DEFAULT_MAX_BODY_BYTES = 1024 * 1024;

/** Reads a JSON body with a size cap; clear errors for empty, oversized or malformed bodies. */
export async function readJsonBody(
  req: Request,
  maxBytes = DEFAULT_MAX_BODY_BYTES,
): Promise<unknown> {
  const declared = Number(req.headers.get("content-length") ?? "0");
  if (declared > maxBytes)
    throw new PayloadTooLargeError(`Request body is larger than ${maxBytes} bytes`);
  const buf = await readBodyCapped(req, maxBytes);
  if (buf === null) throw new PayloadTooLargeError(`Request body is larger than ${maxBytes} bytes`);
  if (buf.byteLength === 0) return {};
  const text = buf.toString("utf8");
  refuseDeepJson(text, "Request body");
  let value: unknown;
  try {
    value = JSON.parse(text);
  } catch (e) {
    throw new ValidationError(`Request body is not valid JSON: ${(e as Error).message}`);
  }
  // NUL and lone surrogates are valid JSON escapes that Postgres refuses: a 400 naming the field.
  refuseUnstorable(value, "Request body");
  return value;
}

/**
 * Throws a 400 naming where JSON text nests deeper than the run input limit (lib/json-depth.ts),
 * before anything parses it: deeper values overflow the stack wherever they are serialised.
 * `envelope`: levels the transport itself wraps around the value (not counted).
 */
export function refuseDeepJson(text: string, what: string, envelope = 0): void {
  const refusal = deepJsonRefusal(text, envelope);
  if (refusal)
    throw new ValidationError(`${what} is invalid at ${refusal.where}: ${refusal.message}`, [
      { path: refusal.path, message: refusal.message },
    ]);
}

/**
 * Throws a 400 naming the field when `value` (a body, path params or query) holds text Postgres
 * cannot store (lib/storable-text.ts): otherwise a lookup by such an id fails in the driver (a 500).
 */
export function refuseUnstorable(value: unknown, what: string): void {
  const unstorable = unstorableText(value);
  if (unstorable)
    throw new ValidationError(
      `${what} at ${describePath(unstorable.path)}: ${unstorable.message}`,
      [{ path: unstorable.path, message: unstorable.message }],
    );
}
