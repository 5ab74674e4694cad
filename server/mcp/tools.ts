import "server-only";
import type { McpServer } from "@modelcontextprotocol/sdk/server/mcp.js";
import { registerGovernanceTools } from "./governance-tools";
import { registerProposalTools } from "./proposal-tools";
import { registerRecordingTools } from "./recording-tools";
import { registerRunCompareTools } from "./run-compare-tools";
import { registerRunTools } from "./run-tools";
import { registerTaskTools } from "./task-tools";
import { toolKit, type ToolContext } from "./tool-kit";
import { registerWorkflowTools } from "./workflow-tools";

/**
 * The MCP tools. Each one is an adapter like a tRPC procedure: check the token's role (the same
 * minimum the equivalent tRPC procedure and /api/v1 route require), call service verbs, answer
 * JSON. A refusal — role, validation, not found, a proposal rule — is a tool result with
 * `isError: true` the model can read and act on; only authentication is an HTTP error (401).
 *
 * Registers every tool on `server`, bound to the authenticated caller's context.
 */
export function registerTools(server: McpServer, context: ToolContext): void {
  // The order is the order tools/list answers in.
  const kit = toolKit(server, context);
  registerWorkflowTools(kit);
  registerRunTools(kit);
  registerRunCompareTools(kit);
  registerProposalTools(kit);
  registerTaskTools(kit);
  registerRecordingTools(kit);
  registerGovernanceTools(kit);
}
