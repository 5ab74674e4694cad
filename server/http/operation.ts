import type { z } from "zod";
import type { Role } from "@/lib/schemas/roles";

/** The methods an /api/v1 route can implement (HEAD follows GET; OPTIONS is answered for all). */
export const API_METHODS = ["GET", "POST", "PUT", "PATCH", "DELETE"] as const;
export type ApiMethod = (typeof API_METHODS)[number];

type ObjectSchema = z.ZodObject;

export interface OperationResponse {
  description: string;
  /** JSON body schema; omitted = an untyped JSON object (or `contentType`'s raw body). */
  schema?: z.ZodType;
  /** Default `application/json`. */
  contentType?: string;
}

/**
 * One HTTP operation of /api/v1: the single description both the route handler (to parse and
 * authorize) and the OpenAPI document (server/http/openapi.ts) are built from, so the two cannot
 * drift. Route files are adapters: `endpoint(operation, handler)` parses, the handler calls one
 * service verb.
 */
export interface Operation<
  P extends ObjectSchema | undefined = ObjectSchema | undefined,
  Q extends ObjectSchema | undefined = ObjectSchema | undefined,
  B extends z.ZodType | undefined = z.ZodType | undefined,
> {
  method: ApiMethod;
  /** OpenAPI-style path below /api/v1, e.g. `/workflows/{id}/versions/{versionId}`. */
  path: string;
  operationId: string;
  summary: string;
  description?: string;
  tag: string;
  /** The minimum role of the API token; `null` = public (no token read at all). */
  minRole: Role | null;
  params?: P;
  query?: Q;
  body?: B;
  /** Body cap in bytes (default 1 MiB); larger bodies answer 413 before being buffered. */
  maxBodyBytes?: number;
  /** Success responses by status. */
  responses: Record<number, OperationResponse>;
  /** Refusals beyond the standard 400/401/403/404 (e.g. 409, 412, 413). */
  errors?: number[];
}

export type Inferred<T> = T extends z.ZodType ? z.output<T> : undefined;

export function defineOperation<
  P extends ObjectSchema | undefined = undefined,
  Q extends ObjectSchema | undefined = undefined,
  B extends z.ZodType | undefined = undefined,
>(op: Operation<P, Q, B>): Operation<P, Q, B> {
  return op;
}
