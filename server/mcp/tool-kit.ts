import "server-only";
import type { McpServer } from "@modelcontextprotocol/sdk/server/mcp.js";
import type { CallToolResult, ToolAnnotations } from "@modelcontextprotocol/sdk/types.js";
import { z } from "zod";
import { hasRole, type Role } from "@/lib/schemas/roles";
import { ForbiddenError } from "../errors";
import { refuseUnstorable } from "../http/api";
import type { ServiceContext } from "../services/context";
import { MAX_RUN_WAIT_MS } from "../services/runs/wait-for-run";
import { toolError, toolResult } from "./results";

/**
 * What every MCP tool shares: the registrar that checks the token's role and turns refusals into
 * `isError` results, and the argument schemas several tools use.
 */

export const workflowRef = z
  .string()
  .trim()
  .min(1)
  .max(120)
  .describe("The workflow's id (wf_…) or its slug");
export const runId = z.string().min(1).max(64).describe("The run id (run_…), a.k.a. executionId");
export const waitMs = (fallback: number) =>
  z
    .number()
    .int()
    .min(0)
    .max(MAX_RUN_WAIT_MS)
    .default(fallback)
    .describe(
      `How long to wait (ms, at most ${MAX_RUN_WAIT_MS}) for the run to finish or stop at an approval gate`,
    );

export const READ: ToolAnnotations = { readOnlyHint: true, openWorldHint: false };

export interface ToolContext {
  ctx: ServiceContext;
  /** Aborted when the HTTP request goes away: ends waits early. */
  signal?: AbortSignal;
}

export interface ToolDef<S extends z.ZodRawShape> {
  title: string;
  description: string;
  minRole: Role;
  annotations: ToolAnnotations;
  input: S;
}

export type DefineTool = <S extends z.ZodRawShape>(
  name: string,
  def: ToolDef<S>,
  run: (args: z.infer<z.ZodObject<S>>, extra: { signal: AbortSignal }) => Promise<object>,
) => void;

/** The tools of one area register themselves through this, bound to the caller's context. */
export interface ToolKit {
  tool: DefineTool;
  ctx: ServiceContext;
  /** The signal a wait honours: the HTTP request's and the tool call's. */
  waitSignal: (extra: { signal: AbortSignal }) => AbortSignal;
}

export function toolKit(server: McpServer, { ctx, signal }: ToolContext): ToolKit {
  const role = ctx.workspace!.role;

  const tool: DefineTool = (name, def, run) => {
    const cb = async (
      args: Parameters<typeof run>[0],
      extra: { signal: AbortSignal },
    ): Promise<CallToolResult> => {
      try {
        if (!hasRole(role, def.minRole))
          throw new ForbiddenError(
            `${name} needs a token with the ${def.minRole} role or higher; this token acts as ${role}`,
          );
        refuseUnstorable(args, "Arguments");
        return toolResult(await run(args, extra));
      } catch (e) {
        return toolError(e, ctx.log, name);
      }
    };
    server.registerTool(
      name,
      {
        title: def.title,
        description: `${def.description} Needs the ${def.minRole} role or higher.`,
        inputSchema: def.input,
        annotations: { title: def.title, ...def.annotations },
      },
      cb as never,
    );
  };

  const waitSignal = (extra: { signal: AbortSignal }) =>
    signal ? AbortSignal.any([signal, extra.signal]) : extra.signal;

  return { tool, ctx, waitSignal };
}
