import "server-only";
import type { CallToolResult } from "@modelcontextprotocol/sdk/types.js";
import { logWithRef, type Logger } from "@/lib/log";
import { DomainError, type ValidationIssueLike } from "../errors";
import { ProposalError } from "../services/proposals/errors";

/** A successful tool answer: the value as JSON text (for models) and as structured content. */
export function toolResult(value: object): CallToolResult {
  const text = JSON.stringify(value);
  return {
    content: [{ type: "text", text }],
    structuredContent: JSON.parse(text) as Record<string, unknown>,
  };
}

/**
 * A refusal as an MCP tool result (`isError: true`), so the model reads it and can correct the
 * call: `<code>: <message>` plus one line per validation issue naming its JSON path. The
 * structured content repeats the HTTP API's error body `{ error: { code, message, details } }`.
 * Unknown errors are logged in full and answered with a generic message and a reference.
 */
export function toolError(e: unknown, log: Logger, tool: string): CallToolResult {
  if (e instanceof DomainError) {
    const code = (e instanceof ProposalError ? e.reason : e.code).toLowerCase();
    const issues = (e.details as { issues?: ValidationIssueLike[] } | undefined)?.issues ?? [];
    const lines = [
      `${code}: ${e.message}`,
      ...issues
        .filter((i) => i.message !== e.message || (i.path?.length ?? 0) > 0)
        .map((i) => `- ${i.path?.length ? `at ${i.path.join(".")}: ` : ""}${i.message}`),
    ];
    return {
      isError: true,
      content: [{ type: "text", text: lines.join("\n") }],
      structuredContent: JSON.parse(
        JSON.stringify({
          error: {
            code,
            message: e.message,
            ...(e.details === undefined ? {} : { details: e.details }),
          },
        }),
      ) as Record<string, unknown>,
    };
  }
  const ref = logWithRef(log, "mcp tool failed", e, { tool });
  const message = `Something went wrong on our side (ref ${ref})`;
  return {
    isError: true,
    content: [{ type: "text", text: `internal: ${message}` }],
    structuredContent: { error: { code: "internal", message } },
  };
}
