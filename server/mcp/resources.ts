import "server-only";
import { logWithRef } from "@/lib/log";
import { ResourceTemplate, type McpServer } from "@modelcontextprotocol/sdk/server/mcp.js";
import { ErrorCode, McpError, type ReadResourceResult } from "@modelcontextprotocol/sdk/types.js";
import { DomainError } from "../errors";
import { refuseUnstorable } from "../http/api";
import type { ServiceContext } from "../services/context";
import { listRuns } from "../services/runs/list-runs";
import { getRunEnvelope } from "../services/runs/run-envelope";
import { exportWorkflow } from "../services/workflows/export-workflow";
import { listWorkflows } from "../services/workflows/list-workflows";

/** MCP's "resource not found" code (the spec reserves -32002; the SDK has no constant for it). */
const RESOURCE_NOT_FOUND = -32002;
const RECENT = 50;

/**
 * Read-only resources, for clients that attach context rather than call tools:
 * `sluice://workflows/{id}` — the published definition (JSON, layout included) and
 * `sluice://runs/{id}` — the run's envelope (as get_run answers it). Listing returns the
 * published workflows and the most recent runs, 50 each.
 */
export function registerResources(server: McpServer, ctx: ServiceContext): void {
  server.registerResource(
    "workflow",
    new ResourceTemplate("sluice://workflows/{id}", {
      list: () =>
        guard(ctx, "sluice://workflows", async () => {
          const { items } = await listWorkflows({
            ctx,
            input: { status: "published", limit: RECENT },
          });
          return {
            resources: items.map((w) => ({
              uri: `sluice://workflows/${w.id}`,
              name: w.slug,
              title: w.name,
              description: `v${w.currentVersion}${w.description ? ` — ${w.description}` : ""}`,
              mimeType: "application/json",
            })),
          };
        }),
    }),
    {
      title: "Workflow definition",
      description: "The published definition of a workflow (JSON)",
      mimeType: "application/json",
    },
    (uri, vars) =>
      guard(
        ctx,
        uri.href,
        async (): Promise<ReadResourceResult> => {
          const exported = await exportWorkflow({
            ctx,
            input: { workflowId: String(vars.id), version: "current", format: "json" },
          });
          return {
            contents: [{ uri: uri.href, mimeType: "application/json", text: exported.content }],
          };
        },
        vars,
      ),
  );

  server.registerResource(
    "run",
    new ResourceTemplate("sluice://runs/{id}", {
      list: () =>
        guard(ctx, "sluice://runs", async () => {
          const { items } = await listRuns({ ctx, input: { limit: RECENT } });
          return {
            resources: items.map((r) => ({
              uri: `sluice://runs/${r.id}`,
              name: r.id,
              title: `${r.workflowName} · ${r.status}`,
              description: `Run of ${r.workflowName} v${r.version}, ${r.status}, started ${r.createdAt.toISOString()}`,
              mimeType: "application/json",
            })),
          };
        }),
    }),
    {
      title: "Run",
      description:
        "A run's envelope: status, output, every step's latest attempt, open gate, error",
      mimeType: "application/json",
    },
    (uri, vars) =>
      guard(
        ctx,
        uri.href,
        async (): Promise<ReadResourceResult> => {
          const envelope = await getRunEnvelope({ ctx, input: { runId: String(vars.id) } });
          return {
            contents: [
              {
                uri: uri.href,
                mimeType: "application/json",
                text: JSON.stringify(envelope, null, 2),
              },
            ],
          };
        },
        vars,
      ),
  );
}

/** Resources have no error results: refusals become JSON-RPC errors with the service's message. */
async function guard<T>(
  ctx: ServiceContext,
  uri: string,
  read: () => Promise<T>,
  vars: Record<string, unknown> = {},
): Promise<T> {
  try {
    refuseUnstorable(vars, "Resource URI");
    return await read();
  } catch (e) {
    if (e instanceof DomainError) {
      const code =
        e.code === "NOT_FOUND"
          ? RESOURCE_NOT_FOUND
          : e.code === "VALIDATION"
            ? ErrorCode.InvalidParams
            : ErrorCode.InvalidRequest;
      throw new McpError(code, e.message, { code: e.code.toLowerCase(), uri });
    }
    const ref = logWithRef(ctx.log, "mcp resource failed", e, { uri });
    throw new McpError(ErrorCode.InternalError, `Something went wrong on our side (ref ${ref})`);
  }
}
