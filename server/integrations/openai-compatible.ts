import "server-only";
import { parseRetryAfter } from "@/lib/net/retry-after";
import type { OutboundPolicy } from "../net/outbound-host";
import { safeFetch } from "../net/safe-fetch";
import { SafeFetchError } from "../net/safe-fetch-error";

/**
 * A minimal client for OpenAI-compatible chat completions (OpenAI, Azure-style gateways, Ollama,
 * vLLM, LM Studio, LiteLLM, …): `POST <baseUrl>/chat/completions` with a bearer key. Outbound
 * through safe-fetch, so a local model server must be in the workspace's allowed private hosts.
 */

export interface LlmEndpointConfig {
  baseUrl: string;
  model: string;
  apiKey?: string;
}

export interface ToolCall {
  id: string;
  type: "function";
  function: { name: string; arguments: string };
}

export type ChatMessage =
  | { role: "system" | "user"; content: string }
  | { role: "assistant"; content: string | null; tool_calls?: ToolCall[] }
  | { role: "tool"; tool_call_id: string; content: string };

export interface ToolDefinition {
  type: "function";
  function: { name: string; description?: string; parameters: Record<string, unknown> };
}

export type ResponseFormat =
  | { type: "json_object" }
  | {
      type: "json_schema";
      json_schema: { name: string; schema: Record<string, unknown>; strict?: boolean };
    };

export interface ChatCompletionRequest {
  model?: string;
  messages: ChatMessage[];
  temperature?: number;
  maxTokens?: number;
  responseFormat?: ResponseFormat;
  tools?: ToolDefinition[];
}

export interface TokenUsage {
  promptTokens: number;
  completionTokens: number;
  totalTokens: number;
}

export interface ChatCompletionResult {
  model: string;
  content: string | null;
  toolCalls: ToolCall[];
  finishReason: string | null;
  usage: TokenUsage;
}

export type LlmErrorKind =
  | "auth"
  | "not_found"
  | "bad_request"
  | "rate_limited"
  | "server"
  | "network"
  | "refused"
  | "invalid_response";

export class LlmError extends Error {
  constructor(
    readonly kind: LlmErrorKind,
    message: string,
    readonly retryable: boolean,
    readonly extra: { status?: number; retryAfterMs?: number; cause?: unknown } = {},
  ) {
    super(message, extra.cause === undefined ? undefined : { cause: extra.cause });
    this.name = "LlmError";
  }
}

export interface LlmCallOptions {
  signal?: AbortSignal;
  timeoutMs?: number;
  outbound?: OutboundPolicy;
}

export const LLM_DEFAULT_TIMEOUT_MS = 120_000;
const MAX_RESPONSE_BYTES = 8 * 1024 * 1024;

export function addUsage(a: TokenUsage, b: TokenUsage): TokenUsage {
  return {
    promptTokens: a.promptTokens + b.promptTokens,
    completionTokens: a.completionTokens + b.completionTokens,
    totalTokens: a.totalTokens + b.totalTokens,
  };
}

export const ZERO_USAGE: TokenUsage = { promptTokens: 0, completionTokens: 0, totalTokens: 0 };

function completionsUrl(baseUrl: string): string {
  return `${baseUrl.replace(/\/+$/, "")}/chat/completions`;
}

/** The server's own error message (`{ error: { message } }` or text), shortened. */
function serverMessage(text: string): string {
  try {
    const parsed = JSON.parse(text) as {
      error?: { message?: unknown } | string;
      message?: unknown;
    };
    const m =
      typeof parsed.error === "string"
        ? parsed.error
        : typeof parsed.error?.message === "string"
          ? parsed.error.message
          : typeof parsed.message === "string"
            ? parsed.message
            : null;
    if (m) return m.slice(0, 500);
  } catch {
    // Not JSON: fall through to the raw text.
  }
  return text.trim().slice(0, 500) || "(empty response)";
}

function num(v: unknown): number {
  return typeof v === "number" && Number.isFinite(v) ? v : 0;
}

export async function chatCompletion(
  endpoint: LlmEndpointConfig,
  request: ChatCompletionRequest,
  options: LlmCallOptions = {},
): Promise<ChatCompletionResult> {
  const model = request.model ?? endpoint.model;
  const payload: Record<string, unknown> = {
    model,
    messages: request.messages,
    temperature: request.temperature ?? 0,
  };
  if (request.maxTokens !== undefined) payload.max_tokens = request.maxTokens;
  if (request.responseFormat) payload.response_format = request.responseFormat;
  if (request.tools && request.tools.length > 0) {
    payload.tools = request.tools;
    payload.tool_choice = "auto";
  }
  const headers: Record<string, string> = {
    "content-type": "application/json",
    accept: "application/json",
  };
  if (endpoint.apiKey) headers.authorization = `Bearer ${endpoint.apiKey}`;
  const url = completionsUrl(endpoint.baseUrl);

  let res;
  try {
    res = await safeFetch(url, {
      ...options.outbound,
      method: "POST",
      headers,
      body: JSON.stringify(payload),
      signal: options.signal,
      timeoutMs: options.timeoutMs ?? LLM_DEFAULT_TIMEOUT_MS,
      maxResponseBytes: MAX_RESPONSE_BYTES,
    });
  } catch (e) {
    if (e instanceof SafeFetchError) {
      const refused = ["BLOCKED_ADDRESS", "DOMAIN_NOT_ALLOWED", "INVALID_URL"].includes(e.code);
      throw new LlmError(
        refused ? "refused" : "network",
        `LLM endpoint ${url}: ${e.message}`,
        e.retryable,
        { cause: e },
      );
    }
    throw e;
  }

  const text = res.text();
  if (res.status < 200 || res.status >= 300) {
    const detail = `LLM endpoint answered ${res.status}: ${serverMessage(text)}`;
    const status = res.status;
    if (status === 401 || status === 403)
      throw new LlmError("auth", `${detail} (check the API key secret)`, false, { status });
    if (status === 404)
      throw new LlmError(
        "not_found",
        `${detail} (check the base URL and the model "${model}")`,
        false,
        { status },
      );
    if (status === 429)
      throw new LlmError("rate_limited", detail, true, {
        status,
        retryAfterMs: parseRetryAfter(res.headers["retry-after"]),
      });
    if (status >= 500 || status === 408)
      throw new LlmError("server", detail, true, {
        status,
        retryAfterMs: parseRetryAfter(res.headers["retry-after"]),
      });
    throw new LlmError("bad_request", detail, false, { status });
  }

  let body: {
    model?: unknown;
    choices?: Array<{
      message?: { content?: unknown; tool_calls?: unknown };
      finish_reason?: unknown;
    }>;
    usage?: { prompt_tokens?: unknown; completion_tokens?: unknown; total_tokens?: unknown };
  };
  try {
    body = JSON.parse(text) as typeof body;
  } catch {
    throw new LlmError(
      "invalid_response",
      `LLM endpoint returned something that is not JSON: ${text.slice(0, 200)}`,
      false,
    );
  }
  const choice = Array.isArray(body.choices) ? body.choices[0] : undefined;
  if (!choice || typeof choice.message !== "object" || choice.message === null) {
    throw new LlmError("invalid_response", "LLM endpoint returned no choices", false);
  }
  const content = typeof choice.message.content === "string" ? choice.message.content : null;
  const toolCalls: ToolCall[] = [];
  if (Array.isArray(choice.message.tool_calls)) {
    for (const raw of choice.message.tool_calls as Array<Record<string, unknown>>) {
      const fn = raw?.function as { name?: unknown; arguments?: unknown } | undefined;
      if (!fn || typeof fn.name !== "string") continue;
      toolCalls.push({
        id: typeof raw.id === "string" ? raw.id : `call_${toolCalls.length + 1}`,
        type: "function",
        function: {
          name: fn.name,
          arguments:
            typeof fn.arguments === "string" ? fn.arguments : JSON.stringify(fn.arguments ?? {}),
        },
      });
    }
  }
  const promptTokens = num(body.usage?.prompt_tokens);
  const completionTokens = num(body.usage?.completion_tokens);
  return {
    model: typeof body.model === "string" ? body.model : model,
    content,
    toolCalls,
    finishReason: typeof choice.finish_reason === "string" ? choice.finish_reason : null,
    usage: {
      promptTokens,
      completionTokens,
      totalTokens: num(body.usage?.total_tokens) || promptTokens + completionTokens,
    },
  };
}
