import type { StepConfig } from "@/lib/workflow/steps";
import { CODE_DEFAULT_TIMEOUT_MS } from "@/lib/workflow/steps";
import {
  McpClient,
  McpError,
  requiredArguments,
  type McpCallResult,
} from "@/server/integrations/mcp-client";
import { SafeFetchError } from "@/server/net/safe-fetch-error";
import { runQuickJs } from "@/server/sandbox/quickjs";
import { sandboxFailure } from "./code";
import { outboundPolicy, remainingMs, userFailure } from "./failures";
import { StepFailure, type ActionHandler } from "./types";

export type ToolStepConfig = StepConfig<"tool">;

/** What an error message quotes of the tool's own text. */
const MESSAGE_MAX_CHARS = 2_000;
const TRANSFORM_MEMORY_MB = 64;

const clip = (text: string, max: number) =>
  text.length > max ? `${text.slice(0, max)}… [${text.length - max} more characters]` : text;

function textOf(result: McpCallResult): string {
  return result.content
    .filter((c) => c.type === "text" && typeof c.text === "string")
    .map((c) => c.text)
    .join("\n");
}

/** structuredContent when the tool sent it, else the text parsed as JSON, else the text itself. */
function dataOf(result: McpCallResult, text: string): unknown {
  if (result.structuredContent !== undefined) return result.structuredContent;
  if (text === "") return null;
  try {
    return JSON.parse(text) as unknown;
  } catch {
    // Plain text answers are common ("3 files changed"): the text is the result.
    return text;
  }
}

const isTimeout = (e: McpError) =>
  e.cause instanceof SafeFetchError && (e.cause.code === "TIMEOUT" || e.cause.code === "ABORTED");

/**
 * The `tool` step: one `tools/call` on an MCP server configured in the workspace (streamable HTTP
 * through the SSRF guard, the agent step's client). The server's tool list is read first — a
 * missing tool or required argument is a clear user error, and the list is cached for publish-time
 * checks. Classification: transport trouble (network, 429, 5xx) and timeouts are operational
 * (retried per the step's `retry`); protocol refusals and a tool's own error (`isError`) are user
 * errors carrying the tool's message. An optional `transform` runs in the code step's sandbox.
 */
export const toolHandler: ActionHandler<ToolStepConfig> = async (ctx) => {
  const config = ctx.config;
  const server = ctx.mcpServer;
  const details = { server: config.server, tool: config.tool };
  if (!server)
    throw userFailure(
      `No MCP server named "${config.server}" is configured in this workspace; a workspace admin adds it under Settings → Integrations.`,
      details,
    );
  const limitMs = remainingMs(ctx, config.timeoutMs);
  const timeout = new AbortController();
  const timer = setTimeout(() => timeout.abort(new Error("tool call timed out")), limitMs);
  const started = Date.now();
  let client: McpClient | undefined;
  try {
    client = await McpClient.connect(server.url, {
      headers: server.headers,
      outbound: outboundPolicy(ctx),
      signal: AbortSignal.any([ctx.signal, timeout.signal]),
      timeoutMs: limitMs,
    });
    const tools = await client.listTools();
    await ctx
      .recordMcpTools?.(tools)
      .catch((e: unknown) => ctx.log.warn("could not cache the MCP tool list", { err: e }));
    const tool = tools.find((t) => t.name === config.tool);
    if (!tool)
      throw userFailure(
        `MCP server "${server.name}" has no tool named "${config.tool}" (it offers: ${tools.map((t) => t.name).join(", ") || "none"}).`,
        details,
      );
    const missing = requiredArguments(tool.inputSchema).filter(
      (name) => !Object.prototype.hasOwnProperty.call(config.arguments, name),
    );
    if (missing.length)
      throw userFailure(
        `Tool "${config.tool}" requires the argument${missing.length === 1 ? "" : "s"} ${missing.map((m) => `"${m}"`).join(", ")}; add ${missing.length === 1 ? "it" : "them"} to config.arguments.`,
        { ...details, missing },
      );
    const result = await client.callTool(config.tool, config.arguments);
    const text = textOf(result);
    if (result.isError)
      throw userFailure(
        `Tool "${config.tool}" on MCP server "${server.name}" reported an error: ${clip(text || "(no message)", MESSAGE_MAX_CHARS)}`,
        { ...details, text: clip(text, MESSAGE_MAX_CHARS) },
      );
    const other = result.content.filter((c) => c.type !== "text");
    const meta: Record<string, unknown> = {
      server: server.name,
      tool: config.tool,
      text,
      ...(other.length ? { content: other } : {}),
      durationMs: Date.now() - started,
    };
    const data = dataOf(result, text);
    if (config.transform === undefined) return { data, meta };
    return { data: await transform(ctx, config.transform, data, text, details), meta };
  } catch (e) {
    if (!(e instanceof McpError)) throw e;
    if (timeout.signal.aborted || (isTimeout(e) && !ctx.signal.aborted))
      throw new StepFailure(
        `Tool "${config.tool}" on MCP server "${server.name}" did not answer within ${limitMs} ms`,
        "operational",
        { ...details, code: "TIMEOUT" },
      );
    throw new StepFailure(
      e.message,
      e.retryable ? "operational" : "user",
      {
        ...details,
        ...(e.extra.status ? { status: e.extra.status } : {}),
        ...(e.extra.rpcCode !== undefined ? { rpcCode: e.extra.rpcCode } : {}),
      },
      e.extra.retryAfterMs,
    );
  } finally {
    clearTimeout(timer);
    await client?.close();
  }
};

async function transform(
  ctx: Parameters<ActionHandler<ToolStepConfig>>[0],
  source: string,
  data: unknown,
  text: string,
  details: Record<string, unknown>,
): Promise<unknown> {
  const timeoutMs = remainingMs(ctx, CODE_DEFAULT_TIMEOUT_MS);
  const outcome = await runQuickJs({
    source,
    input: data,
    context: {
      runId: ctx.runId,
      workflowId: ctx.workflowId,
      stepId: ctx.stepId,
      attempt: ctx.attempt,
      text,
    },
    timeoutMs,
    memoryBytes: TRANSFORM_MEMORY_MB * 1024 * 1024,
    signal: ctx.signal,
  });
  if (outcome.ok) return outcome.result;
  throw sandboxFailure(
    outcome.error,
    timeoutMs,
    TRANSFORM_MEMORY_MB,
    { ...details, logs: outcome.logs },
    "The transform failed: ",
  );
}
