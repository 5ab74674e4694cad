/** Configs of the model and tool steps: llm, agent and tool (MCP). */
import { z } from "zod";
import { jsonValue, templateString } from "../primitives";
import { HeaderName, ModuleSource } from "./actions";

// --- llm / agent -----------------------------------------------------------------------------

export const LlmConfig = z.strictObject({
  model: z
    .string()
    .min(1)
    .max(200)
    .optional()
    .describe("Model name; defaults to the workspace's configured model."),
  system: z.string().max(100_000).optional().describe("System prompt; templates allowed."),
  prompt: templateString("User prompt."),
  temperature: z
    .number()
    .min(0)
    .max(2)
    .default(0)
    .describe("Sampling temperature, 0–2 (default 0 for repeatable runs)."),
  json: z
    .union([z.boolean(), z.record(z.string(), jsonValue("JSON Schema keyword"))])
    .default(false)
    .describe(
      "true to require a JSON object answer, or a JSON Schema the answer must match; output.data is then the parsed value.",
    ),
  maxTokens: z.int().min(1).max(200_000).optional().describe("Maximum tokens in the answer."),
});

export const AgentTool = z.discriminatedUnion("type", [
  z.strictObject({
    type: z.literal("workflow"),
    workflow: z.string().min(1).max(200).describe("Workflow id or slug exposed as a tool."),
    description: z
      .string()
      .max(2_000)
      .optional()
      .describe("What the tool does, shown to the model."),
  }),
  z.strictObject({
    type: z.literal("mcp"),
    url: templateString("MCP server URL (streamable HTTP).", 8192),
    headers: z
      .record(HeaderName, z.string())
      .default({})
      .describe("Headers for the MCP server; may use {{ secrets.NAME }}."),
    tools: z
      .array(z.string().min(1))
      .optional()
      .describe("Allow-list of tool names from this server; all when omitted."),
  }),
]);

export const AgentConfig = z.strictObject({
  model: z
    .string()
    .min(1)
    .max(200)
    .optional()
    .describe("Model name; defaults to the workspace's configured model."),
  system: z
    .string()
    .max(100_000)
    .optional()
    .describe("Extra system instructions; templates allowed."),
  goal: templateString("What the agent must achieve."),
  tools: z
    .array(AgentTool)
    .max(50)
    .default([])
    .describe("Tools: Sluice workflows and/or MCP servers."),
  maxIterations: z
    .int()
    .min(1)
    .max(50)
    .default(8)
    .describe("Upper bound on model ↔ tool rounds (default 8, max 50)."),
});

// --- tool -----------------------------------------------------------------------------------

export const TOOL_DEFAULT_TIMEOUT_MS = 30_000;
export const TOOL_MAX_TIMEOUT_MS = 600_000;
/** The workspace's MCP server names (lib/schemas/workspace.ts McpServerName uses the same). */
export const MCP_SERVER_NAME = /^[a-z][a-z0-9_-]{0,63}$/;

export const ToolConfig = z.strictObject({
  server: z
    .string()
    .regex(MCP_SERVER_NAME, {
      message:
        "Name an MCP server configured under Settings → Integrations (lower-case letters, digits, - and _).",
    })
    .describe("Name of an MCP server configured under Settings → Integrations."),
  tool: z
    .string()
    .min(1)
    .max(200)
    .regex(/^[^{}]+$/, { message: "The tool name is literal (no templates)." })
    .describe("Name of the tool on that server."),
  arguments: z
    .record(z.string().min(1).max(200), jsonValue("Argument value; templates allowed."))
    .default({})
    .describe("The tool's arguments; values may be templates (a lone {{ path }} keeps its type)."),
  transform: ModuleSource("transform")
    .optional()
    .describe(
      "Optional JavaScript run in the code step's QuickJS sandbox over the result: `export default function (data, ctx) { … }` (ctx.text holds the text content). Its return value becomes output.data.",
    ),
  timeoutMs: z
    .int()
    .min(100)
    .max(TOOL_MAX_TIMEOUT_MS)
    .default(TOOL_DEFAULT_TIMEOUT_MS)
    .describe(
      "Time limit for the whole call in ms (default 30000, max 600000; the run's deadline still applies).",
    ),
});
