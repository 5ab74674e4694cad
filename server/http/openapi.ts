import "server-only";
import { z } from "zod";
import {
  createDocument,
  type ZodOpenApiOperationObject,
  type ZodOpenApiPathsObject,
  type ZodOpenApiResponseObject,
} from "zod-openapi";
import { ErrorEnvelope } from "./operations/common";
import { OPERATIONS } from "./operations";
import type { Operation } from "./operation";

const ERROR_TEXT: Record<number, string> = {
  400: "Invalid input: `details.issues` lists every problem with its path",
  401: "Missing, malformed, expired or revoked token",
  403: "The token's role is too low for this operation",
  404: "No such resource in the token's workspace (other workspaces' resources answer 404 too)",
  405: "Method not allowed on this path (`Allow` header lists the right ones)",
  409: "Conflict with the current state (e.g. a newer draft revision)",
  410: "Gone (e.g. an expired proposal)",
  412: "Precondition failed (e.g. nothing published yet)",
  413: "Request body larger than the operation's limit",
  429: "Rate limited; see `Retry-After`",
  500: "Internal error; the message carries a reference found in the server log",
};

function toOperation(op: Operation): ZodOpenApiOperationObject {
  const errorStatuses = [
    ...(op.params || op.query || op.body ? [400] : []),
    ...(op.minRole ? [401, 403] : []),
    ...(op.params ? [404] : []),
    ...(op.errors ?? []),
    500,
  ];
  const responses: Record<string, ZodOpenApiResponseObject> = {};
  for (const [status, r] of Object.entries(op.responses)) {
    responses[status] = {
      description: r.description,
      content: { [r.contentType ?? "application/json"]: { schema: r.schema ?? z.unknown() } },
    };
  }
  for (const status of [...new Set(errorStatuses)].sort()) {
    responses[String(status)] = {
      description: ERROR_TEXT[status] ?? "Error",
      content: { "application/json": { schema: ErrorEnvelope } },
    };
  }
  return {
    operationId: op.operationId,
    summary: op.summary,
    ...(op.description ? { description: op.description } : {}),
    tags: [op.tag],
    ...(op.minRole ? { "x-min-role": op.minRole } : { security: [] }),
    requestParams: {
      ...(op.params ? { path: op.params } : {}),
      ...(op.query ? { query: op.query } : {}),
    },
    ...(op.body
      ? {
          requestBody: {
            required: true,
            content: { "application/json": { schema: op.body } },
          },
        }
      : {}),
    responses: responses as ZodOpenApiOperationObject["responses"],
  };
}

let cached: ReturnType<typeof createDocument> | undefined;

/**
 * The OpenAPI 3.1 document of /api/v1, generated from the same operation objects (and zod
 * contracts) the route handlers parse with. Built once per process.
 */
export function openApiDocument() {
  if (cached) return cached;
  const paths: ZodOpenApiPathsObject = {};
  for (const op of OPERATIONS) {
    const item = (paths[op.path] ??= {});
    (item as Record<string, ZodOpenApiOperationObject>)[op.method.toLowerCase()] = toOperation(op);
  }
  cached = createDocument(
    {
      openapi: "3.1.0",
      info: {
        title: "Sluice API",
        version: "1",
        description:
          "Workflows, runs, triggers, proposals and events for agents and scripts. Authenticate with `Authorization: Bearer slu_…` (Settings → API tokens); a token acts with its own role, capped by its creator's. Every refusal is `{ error: { code, message, details } }`. See docs/api.md.",
      },
      servers: [{ url: "/api/v1" }],
      security: [{ bearerAuth: [] }],
      components: {
        securitySchemes: {
          bearerAuth: { type: "http", scheme: "bearer", bearerFormat: "slu_…" },
        },
      },
      paths,
    },
    {
      // Conditions are a recursive custom schema (lib/workflow/conditions.ts): documented in prose.
      allowEmptySchema: { custom: true },
      override: ({ jsonSchema, zodSchema }) => {
        if (zodSchema._zod.def.type === "date") {
          jsonSchema.type = "string";
          jsonSchema.format = "date-time";
        }
      },
    },
  );
  return cached;
}
