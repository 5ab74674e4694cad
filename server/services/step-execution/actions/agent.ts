import type { StepConfig } from "@/lib/workflow/steps";
import {
  McpClient,
  McpError,
  type McpCallResult,
  type McpTool,
} from "@/server/integrations/mcp-client";
import {
  addUsage,
  LlmError,
  ZERO_USAGE,
  type ChatMessage,
  type ToolCall,
  type ToolDefinition,
} from "@/server/integrations/openai-compatible";
import { failureFromLlm, noLlmFailure, outboundPolicy, remainingMs, userFailure } from "./failures";
import { LLM_STEP_TIMEOUT_MS } from "./llm";
import { budgetedChatCompletion } from "./llm-budget";
import { StepFailure, type ActionContext, type ActionHandler } from "./types";

export type AgentStepConfig = StepConfig<"agent">;

/** What the model sees of one tool result. */
const TOOL_RESULT_MAX_CHARS = 16_000;
/** What the transcript in meta keeps of arguments and results. */
const TRANSCRIPT_MAX_CHARS = 4_000;
const MCP_TIMEOUT_MS = 60_000;

const BASE_SYSTEM_PROMPT =
  "You are an agent running as one step of a Sluice workflow. Use the tools when they help you reach the goal; " +
  "call them with arguments matching their schemas. When you are done, reply with the final result only, without asking questions.";

export interface AgentToolCallRecord {
  iteration: number;
  tool: string;
  source: "workflow" | "mcp" | "unknown";
  arguments: unknown;
  result: string;
  isError: boolean;
  durationMs: number;
}

interface Tool {
  definition: ToolDefinition;
  source: "workflow" | "mcp";
  run(args: Record<string, unknown>): Promise<{ text: string; isError: boolean }>;
}

const clip = (text: string, max: number) =>
  text.length > max ? `${text.slice(0, max)}… [${text.length - max} more characters]` : text;

/** OpenAI tool names: [A-Za-z0-9_-]{1,64}, unique. */
function toolName(raw: string, taken: Set<string>): string {
  const base = raw.replace(/[^A-Za-z0-9_-]/g, "_").slice(0, 60) || "tool";
  let name = base;
  for (let i = 2; taken.has(name); i++) name = `${base}_${i}`;
  taken.add(name);
  return name;
}

function mcpText(result: McpCallResult): string {
  const parts = result.content.map((c) =>
    c.type === "text" && typeof c.text === "string" ? c.text : JSON.stringify(c),
  );
  if (parts.length === 0 && result.structuredContent !== undefined)
    return JSON.stringify(result.structuredContent);
  return parts.join("\n");
}

function stringify(value: unknown): string {
  if (typeof value === "string") return value;
  try {
    return JSON.stringify(value) ?? "null";
  } catch {
    return String(value);
  }
}

function mcpFailure(e: McpError, url: string): StepFailure {
  return new StepFailure(
    e.message,
    e.retryable ? "operational" : "user",
    { mcpServer: url },
    e.extra.retryAfterMs,
  );
}

async function workflowTools(
  ctx: ActionContext<AgentStepConfig>,
  taken: Set<string>,
): Promise<Tool[]> {
  const refs = ctx.config.tools.filter((t) => t.type === "workflow");
  if (refs.length === 0) return [];
  const invoke = ctx.invokeWorkflow;
  if (!invoke) {
    throw new StepFailure(
      "Workflow tools are not available here: the engine provided no invokeWorkflow",
      "internal",
    );
  }
  return refs.map((t) => ({
    source: "workflow" as const,
    definition: {
      type: "function" as const,
      function: {
        name: toolName(`workflow_${t.workflow}`, taken),
        description:
          t.description ??
          `Runs the Sluice workflow "${t.workflow}" with the arguments as its input and returns its output.`,
        parameters: { type: "object", additionalProperties: true },
      },
    },
    async run(args) {
      try {
        return { text: stringify(await invoke(t.workflow, args)), isError: false };
      } catch (e) {
        if (ctx.signal.aborted) throw e;
        return {
          text: `The workflow failed: ${e instanceof Error ? e.message : String(e)}`,
          isError: true,
        };
      }
    },
  }));
}

async function mcpTools(
  ctx: ActionContext<AgentStepConfig>,
  taken: Set<string>,
  clients: McpClient[],
): Promise<Tool[]> {
  const tools: Tool[] = [];
  for (const server of ctx.config.tools) {
    if (server.type !== "mcp") continue;
    let client: McpClient;
    try {
      client = await McpClient.connect(server.url, {
        headers: server.headers,
        outbound: outboundPolicy(ctx),
        signal: ctx.signal,
        timeoutMs: remainingMs(ctx, MCP_TIMEOUT_MS),
      });
    } catch (e) {
      if (e instanceof McpError) throw mcpFailure(e, server.url);
      throw e;
    }
    clients.push(client);
    let listed: McpTool[];
    try {
      listed = await client.listTools();
    } catch (e) {
      if (e instanceof McpError) throw mcpFailure(e, server.url);
      throw e;
    }
    if (server.tools) {
      const missing = server.tools.filter((n) => !listed.some((t) => t.name === n));
      if (missing.length) {
        throw userFailure(
          `MCP server ${server.url} has no tool named ${missing.join(", ")} (it offers: ${listed.map((t) => t.name).join(", ") || "none"})`,
          {
            mcpServer: server.url,
          },
        );
      }
      listed = listed.filter((t) => server.tools!.includes(t.name));
    }
    for (const t of listed) {
      tools.push({
        source: "mcp",
        definition: {
          type: "function",
          function: {
            name: toolName(t.name, taken),
            description: t.description,
            parameters: t.inputSchema,
          },
        },
        async run(args) {
          try {
            const result = await client.callTool(t.name, args);
            return { text: mcpText(result), isError: result.isError };
          } catch (e) {
            if (ctx.signal.aborted || !(e instanceof McpError)) throw e;
            return { text: `The tool call failed: ${e.message}`, isError: true };
          }
        },
      });
    }
  }
  return tools;
}

/** Runs one tool call; every problem becomes an error result the model can react to. */
async function executeCall(
  call: ToolCall,
  byName: Map<string, Tool>,
): Promise<{ tool?: Tool; args: unknown; outcome: { text: string; isError: boolean } }> {
  const tool = byName.get(call.function.name);
  let args: unknown;
  try {
    args = call.function.arguments.trim() === "" ? {} : JSON.parse(call.function.arguments);
  } catch (e) {
    const text = `The arguments are not valid JSON (${(e as Error).message}); call the tool again with a JSON object.`;
    return { tool, args: call.function.arguments, outcome: { text, isError: true } };
  }
  if (!tool) {
    const text = `There is no tool named "${call.function.name}". Available: ${[...byName.keys()].join(", ") || "none"}.`;
    return { args, outcome: { text, isError: true } };
  }
  if (args === null || typeof args !== "object" || Array.isArray(args)) {
    return {
      tool,
      args,
      outcome: { text: "Tool arguments must be a JSON object.", isError: true },
    };
  }
  return { tool, args, outcome: await tool.run(args as Record<string, unknown>) };
}

/**
 * The `agent` step: a bounded tool loop. Each iteration is one chat completion with the tools
 * offered; tool calls are executed (Sluice workflows through `ctx.invokeWorkflow`, MCP tools over
 * streamable HTTP through the SSRF guard) and their results fed back, until the model answers
 * without calling a tool. Tool errors are reported to the model so it can recover; not finishing
 * within `maxIterations` model calls is a user error. The answer is `output.data`; meta holds the
 * transcript of tool calls, the iteration count and the summed token usage.
 */
export const agentHandler: ActionHandler<AgentStepConfig> = async (ctx) => {
  const llm = ctx.llm;
  if (!llm) throw noLlmFailure();
  const config = ctx.config;
  const taken = new Set<string>();
  const clients: McpClient[] = [];
  const started = Date.now();
  let usage = ZERO_USAGE;
  const transcript: AgentToolCallRecord[] = [];
  try {
    const tools = [...(await workflowTools(ctx, taken)), ...(await mcpTools(ctx, taken, clients))];
    const byName = new Map(tools.map((t) => [t.definition.function.name, t]));
    const messages: ChatMessage[] = [
      { role: "system", content: [BASE_SYSTEM_PROMPT, config.system].filter(Boolean).join("\n\n") },
      { role: "user", content: config.goal },
    ];
    let model = config.model ?? llm.model;
    for (let iteration = 1; iteration <= config.maxIterations; iteration++) {
      let reply;
      try {
        reply = await budgetedChatCompletion(
          ctx,
          { model: config.model, messages, temperature: 0, tools: tools.map((t) => t.definition) },
          {
            signal: ctx.signal,
            timeoutMs: remainingMs(ctx, LLM_STEP_TIMEOUT_MS),
            outbound: outboundPolicy(ctx),
          },
        );
      } catch (e) {
        if (e instanceof LlmError) {
          const f = failureFromLlm(e);
          throw new StepFailure(
            f.message,
            f.failureClass,
            { ...f.details, iteration, toolCalls: transcript, usage },
            f.retryAfterMs,
          );
        }
        throw e;
      }
      usage = addUsage(usage, reply.usage);
      model = reply.model;
      if (reply.toolCalls.length === 0) {
        return {
          data: reply.content ?? "",
          meta: {
            model,
            iterations: iteration,
            toolCalls: transcript,
            usage,
            finishReason: reply.finishReason,
            durationMs: Date.now() - started,
          },
        };
      }
      messages.push({ role: "assistant", content: reply.content, tool_calls: reply.toolCalls });
      for (const call of reply.toolCalls) {
        const callStarted = Date.now();
        const { tool, args, outcome } = await executeCall(call, byName);
        transcript.push({
          iteration,
          tool: call.function.name,
          source: tool?.source ?? "unknown",
          arguments: typeof args === "string" ? clip(args, TRANSCRIPT_MAX_CHARS) : args,
          result: clip(outcome.text, TRANSCRIPT_MAX_CHARS),
          isError: outcome.isError,
          durationMs: Date.now() - callStarted,
        });
        messages.push({
          role: "tool",
          tool_call_id: call.id,
          content: clip(
            outcome.isError ? `ERROR: ${outcome.text}` : outcome.text,
            TOOL_RESULT_MAX_CHARS,
          ),
        });
      }
    }
    throw userFailure(
      `The agent did not reach a final answer within maxIterations (${config.maxIterations}); it was still calling tools.`,
      { iterations: config.maxIterations, toolCalls: transcript, usage, model },
    );
  } finally {
    await Promise.all(clients.map((c) => c.close()));
  }
};
