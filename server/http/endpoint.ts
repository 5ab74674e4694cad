import "server-only";
import type { z } from "zod";
import { fromZodError } from "../errors";
import type { ServiceContext } from "../services/context";
import {
  authenticateRequest,
  domainErrorResponse,
  errorResponse,
  readJsonBody,
  refuseUnstorable,
} from "./api";
import { API_METHODS, type ApiMethod, type Inferred, type Operation } from "./operation";
import { securedRoute } from "./security-headers";

export type RouteHandler = (
  req: Request,
  routeCtx: { params: Promise<Record<string, string | string[]>> },
) => Promise<Response>;

export interface EndpointArgs<P, Q, B> {
  ctx: ServiceContext;
  req: Request;
  params: P;
  query: Q;
  body: B;
}

/** Handlers registered by endpoint(), so routeMethods() and tests can find their operation. */
const operationOf = new WeakMap<RouteHandler, Operation>();
const stubs = new WeakSet<RouteHandler>();

/** The operation a route export implements; undefined for 405 stubs and foreign handlers. */
export function operationFor(handler: unknown): Operation | undefined {
  return typeof handler === "function" ? operationOf.get(handler as RouteHandler) : undefined;
}

/** True for the 405 answer routeMethods() puts in place of a method the route lacks. */
export function isMethodStub(handler: unknown): boolean {
  return typeof handler === "function" && stubs.has(handler as RouteHandler);
}

/**
 * Query strings are flat: repeated keys (`?status=a&status=b`) and comma lists (`?status=a,b`)
 * both become arrays for array-typed fields; everything else is the last value as a string
 * (numbers and booleans are coerced by the operation's query schema).
 */
export function queryObject(url: URL, schema: z.ZodObject): Record<string, unknown> {
  const out: Record<string, unknown> = {};
  for (const [key, field] of Object.entries(schema.shape)) {
    const values = url.searchParams.getAll(key);
    if (!values.length) continue;
    if (isArraySchema(field as z.ZodType)) {
      out[key] = values.flatMap((v) => v.split(",")).filter(Boolean);
    } else {
      out[key] = values[values.length - 1];
    }
  }
  return out;
}

function isArraySchema(schema: z.ZodType): boolean {
  let s: z.ZodType = schema;
  for (;;) {
    const def = s._zod.def as { type: string; innerType?: z.ZodType };
    if (def.type === "array") return true;
    if (
      (def.type === "optional" || def.type === "default" || def.type === "nullable") &&
      def.innerType
    )
      s = def.innerType;
    else return false;
  }
}

/**
 * Builds a route handler from an operation: authenticates the token and checks the operation's
 * minimum role, parses path params, query and JSON body with the operation's zod schemas (400
 * with issue paths, 413 past the body cap), then calls `handler`, which calls one service verb.
 * A plain result is sent as JSON with the operation's lowest success status; a handler that
 * chooses its status (201 vs 200 on an idempotent repeat, files, streams) returns a Response.
 */
export function endpoint<
  P extends z.ZodObject | undefined,
  Q extends z.ZodObject | undefined,
  B extends z.ZodType | undefined,
>(
  op: Operation<P, Q, B>,
  handler: (args: EndpointArgs<Inferred<P>, Inferred<Q>, Inferred<B>>) => Promise<unknown>,
): RouteHandler {
  const fn: RouteHandler = async (req, routeCtx) => {
    try {
      const ctx = await authenticateRequest(req, op.minRole);
      const rawParams = await routeCtx.params;
      refuseUnstorable(rawParams, "Path");
      const params = op.params ? parseWith(op.params, rawParams, "Path") : undefined;
      const rawQuery = op.query ? queryObject(new URL(req.url), op.query) : undefined;
      refuseUnstorable(rawQuery, "Query");
      const query = op.query ? parseWith(op.query, rawQuery, "Query") : undefined;
      const body = op.body
        ? parseWith(op.body, await readJsonBody(req, op.maxBodyBytes), "Request body")
        : undefined;
      const result = await handler({
        ctx,
        req,
        params: params as Inferred<P>,
        query: query as Inferred<Q>,
        body: body as Inferred<B>,
      });
      if (result instanceof Response) return result;
      const ok = Number(Object.keys(op.responses)[0] ?? 200);
      return Response.json(result ?? { ok: true }, { status: ok });
    } catch (e) {
      return domainErrorResponse(e);
    }
  };
  operationOf.set(fn, op as Operation);
  return fn;
}

function parseWith(schema: z.ZodType, value: unknown, what: string): unknown {
  const parsed = schema.safeParse(value);
  if (!parsed.success) throw fromZodError(parsed.error, what, { value });
  return parsed.data;
}

type RouteExports = Record<ApiMethod, RouteHandler> & {
  HEAD: RouteHandler | undefined;
  OPTIONS: RouteHandler;
};

/**
 * Every method of a route file: the implemented ones, and for the rest a JSON 405 with an `Allow`
 * header (Next.js would answer an empty 405). Use as
 * `export const { GET, POST, PUT, PATCH, DELETE, HEAD, OPTIONS } = routeMethods({ GET: … })`.
 */
export function routeMethods(handlers: Partial<Record<ApiMethod, RouteHandler>>): RouteExports {
  const implemented = API_METHODS.filter((m) => handlers[m]);
  const allow = [...implemented, ...(handlers.GET ? ["HEAD"] : []), "OPTIONS"].sort().join(", ");
  const stub: RouteHandler = async (req) =>
    errorResponse(
      405,
      "method_not_allowed",
      `${req.method} is not allowed on ${new URL(req.url).pathname}; use ${allow}`,
      { allow: allow.split(", ") },
      { allow },
    );
  stubs.add(stub);
  const out = { HEAD: handlers.GET ? undefined : secured(stub) } as RouteExports;
  for (const m of API_METHODS) out[m] = secured(handlers[m] ?? stub);
  out.OPTIONS = securedRoute(async () => new Response(null, { status: 204, headers: { allow } }));
  return out;
}

/** Every method answering the JSON 404, for the /api/v1 catch-all. */
export function notFoundMethods(): RouteExports {
  const notFound: RouteHandler = async (req) =>
    errorResponse(
      404,
      "not_found",
      `There is no API route ${req.method} ${new URL(req.url).pathname}; see /api/v1/openapi.json`,
    );
  stubs.add(notFound);
  const handler = secured(notFound);
  const out = { HEAD: handler, OPTIONS: handler } as RouteExports;
  for (const m of API_METHODS) out[m] = handler;
  return out;
}

/** securedRoute() that keeps what operationFor() and isMethodStub() know about the handler. */
function secured(handler: RouteHandler): RouteHandler {
  const wrapped = securedRoute(handler);
  const op = operationOf.get(handler);
  if (op) operationOf.set(wrapped, op);
  if (stubs.has(handler)) stubs.add(wrapped);
  return wrapped;
}
