import "server-only";
import { McpServer } from "@modelcontextprotocol/sdk/server/mcp.js";
import type { ServiceContext } from "../services/context";
import { registerResources } from "./resources";
import { registerTools } from "./tools";

export const MCP_SERVER_INFO = { name: "sluice", version: "1.0.0" } as const;

const INSTRUCTIONS = [
  "Sluice runs multi-step workflows with human approval gates and reviewed change proposals.",
  "Find workflows with list_workflows, read one with get_workflow, check a definition with validate_workflow.",
  "run_workflow starts a run and waits for it; status needs_approval means a person (or approve_run with an approver token) must decide the gate in requiresApproval; running means the wait ran out: call get_run with waitMs.",
  "Work handed to you by a task step: current_tasks lists it (instructions and outputSchema); report it with complete_task (output) or fail_task (reason).",
  'To change a workflow, propose_change with baseHash = get_workflow\'s published.hash (or "current", recorded as such); a reviewer approves and applies it.',
  'To build a workflow by doing it: start_recording, then record_step for each call (http, code, llm, notify, or tool of a workspace MCP server; reference earlier results as "@<stepId>.<path>"), finish_recording, and save_as_workflow for a draft a person reviews.',
  "Errors come back as tool results with isError: true, a code, and the JSON paths of invalid fields.",
].join(" ");

/**
 * One MCP server bound to one authenticated caller. The endpoint is stateless (SPEC §9): a fresh
 * server per HTTP request, so no session state outlives the request and every call is authorized
 * by the token it carries.
 */
export function createMcpServer(ctx: ServiceContext, opts: { signal?: AbortSignal } = {}) {
  const server = new McpServer(MCP_SERVER_INFO, {
    capabilities: { tools: {}, resources: {} },
    instructions: INSTRUCTIONS,
  });
  registerTools(server, { ctx, signal: opts.signal });
  registerResources(server, ctx);
  return server;
}
