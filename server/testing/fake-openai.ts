/**
 * A fake OpenAI-compatible chat completions server on 127.0.0.1 for tests. Each request is
 * answered by the test's `reply` function, which sees the parsed request body.
 */
import { sendJson, startHttpServer, type LocalServer } from "./local-http";

export interface FakeChatRequest {
  model: string;
  messages: Array<{
    role: string;
    content: string | null;
    tool_calls?: unknown[];
    tool_call_id?: string;
  }>;
  temperature?: number;
  max_tokens?: number;
  response_format?: { type: string; json_schema?: { schema: unknown } };
  tools?: Array<{
    type: string;
    function: { name: string; description?: string; parameters: unknown };
  }>;
}

export type FakeReply =
  | {
      content?: string | null;
      toolCalls?: Array<{ id?: string; name: string; arguments: unknown }>;
      finishReason?: string;
      usage?: [number, number];
    }
  | { status: number; body: unknown; headers?: Record<string, string> };

export interface FakeOpenAi extends LocalServer {
  /** `http://127.0.0.1:<port>/v1` */
  baseUrl: string;
  bodies: FakeChatRequest[];
}

export async function startFakeOpenAi(
  reply: (req: FakeChatRequest, index: number) => FakeReply,
): Promise<FakeOpenAi> {
  const bodies: FakeChatRequest[] = [];
  const server = await startHttpServer((req, res, raw) => {
    if (req.method !== "POST" || req.url !== "/v1/chat/completions")
      return sendJson(res, 404, { error: { message: `no route ${req.url}` } });
    const body = JSON.parse(raw) as FakeChatRequest;
    bodies.push(body);
    const r = reply(body, bodies.length - 1);
    if ("status" in r) return sendJson(res, r.status, r.body, r.headers);
    const [prompt, completion] = r.usage ?? [10, 5];
    return sendJson(res, 200, {
      id: `chatcmpl-${bodies.length}`,
      object: "chat.completion",
      model: body.model,
      choices: [
        {
          index: 0,
          message: {
            role: "assistant",
            content: r.content ?? null,
            ...(r.toolCalls
              ? {
                  tool_calls: r.toolCalls.map((c, i) => ({
                    id: c.id ?? `call_${bodies.length}_${i}`,
                    type: "function",
                    function: {
                      name: c.name,
                      arguments:
                        typeof c.arguments === "string" ? c.arguments : JSON.stringify(c.arguments),
                    },
                  })),
                }
              : {}),
          },
          finish_reason: r.finishReason ?? (r.toolCalls ? "tool_calls" : "stop"),
        },
      ],
      usage: {
        prompt_tokens: prompt,
        completion_tokens: completion,
        total_tokens: prompt + completion,
      },
    });
  });
  return { ...server, baseUrl: `${server.origin}/v1`, bodies };
}
