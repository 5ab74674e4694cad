import { afterEach, describe, expect, it } from "vitest";
import type { z } from "zod";
import { AgentConfig, LlmConfig } from "@/lib/workflow/steps";
import { startFakeMcp, type FakeMcp } from "@/server/testing/fake-mcp";
import {
  startFakeOpenAi,
  type FakeOpenAi,
  type FakeReply,
  type FakeChatRequest,
} from "@/server/testing/fake-openai";
import { agentHandler } from "./agent";
import { llmHandler, parseJsonAnswer } from "./llm";
import { failureOf, makeActionContext } from "./testing";
import type { ActionContext } from "./types";

const policy = {
  scriptStepsEnabled: false,
  allowedPrivateHosts: ["127.0.0.1"],
  forbiddenStepTypes: [],
};
let openai: FakeOpenAi | undefined;
let mcp: FakeMcp | undefined;
afterEach(async () => {
  await openai?.close();
  await mcp?.close();
  openai = mcp = undefined;
});

async function fakeLlm(reply: (req: FakeChatRequest, i: number) => FakeReply) {
  openai = await startFakeOpenAi(reply);
  return { baseUrl: openai.baseUrl, model: "fake-model", apiKey: "sk-test-key-123" };
}

function llmCtx(
  config: z.input<typeof LlmConfig>,
  overrides: Partial<ActionContext<z.output<typeof LlmConfig>>>,
) {
  return makeActionContext(LlmConfig, config, { policy, ...overrides });
}

describe("llm step", () => {
  it("sends one chat completion (temperature 0, bearer key) and returns the text with usage", async () => {
    const llm = await fakeLlm(() => ({ content: "Hello there", usage: [12, 3] }));
    const out = await llmHandler(llmCtx({ prompt: "Say hello", system: "Be brief" }, { llm }));
    expect(out.data).toBe("Hello there");
    expect(out.meta).toMatchObject({
      model: "fake-model",
      usage: { promptTokens: 12, completionTokens: 3, totalTokens: 15 },
      finishReason: "stop",
    });
    const body = openai!.bodies[0]!;
    expect(body).toMatchObject({
      model: "fake-model",
      temperature: 0,
      messages: [
        { role: "system", content: "Be brief" },
        { role: "user", content: "Say hello" },
      ],
    });
    expect(body.response_format).toBeUndefined();
    expect(openai!.requests[0]!.headers.authorization).toBe("Bearer sk-test-key-123");
  });

  it("uses the step's model and temperature when set", async () => {
    const llm = await fakeLlm(() => ({ content: "ok" }));
    await llmHandler(
      llmCtx({ prompt: "x", model: "other-model", temperature: 0.7, maxTokens: 50 }, { llm }),
    );
    expect(openai!.bodies[0]).toMatchObject({
      model: "other-model",
      temperature: 0.7,
      max_tokens: 50,
    });
  });

  it("returns parsed JSON in JSON mode (also from a fenced answer)", async () => {
    const llm = await fakeLlm((_, i) => ({
      content: i === 0 ? '{"answer": 42}' : '```json\n{"answer": 43}\n```',
    }));
    const a = await llmHandler(llmCtx({ prompt: "json please", json: true }, { llm }));
    expect(a.data).toEqual({ answer: 42 });
    expect(openai!.bodies[0]!.response_format).toEqual({ type: "json_object" });
    expect(openai!.bodies[0]!.messages[0]!.content).toMatch(/JSON/);
    const b = await llmHandler(llmCtx({ prompt: "json please", json: true }, { llm }));
    expect(b.data).toEqual({ answer: 43 });
  });

  it("validates against a JSON Schema: a valid answer passes, an invalid one is a clear user error", async () => {
    const schema = {
      type: "object",
      properties: { name: { type: "string" }, score: { type: "integer", minimum: 0, maximum: 10 } },
      required: ["name", "score"],
      additionalProperties: false,
    };
    const answers = [
      '{"name": "Ada", "score": 9}',
      '{"name": "Ada", "score": 99}',
      "not json at all",
    ];
    const llm = await fakeLlm((_, i) => ({ content: answers[i]! }));
    const ok = await llmHandler(llmCtx({ prompt: "rate", json: schema }, { llm }));
    expect(ok.data).toEqual({ name: "Ada", score: 9 });
    expect(openai!.bodies[0]!.response_format).toMatchObject({
      type: "json_schema",
      json_schema: { schema },
    });
    const bad = await failureOf(llmHandler(llmCtx({ prompt: "rate", json: schema }, { llm })));
    expect(bad.failureClass).toBe("user");
    expect(bad.message).toMatch(/does not match the JSON Schema: score: Too big/);
    const notJson = await failureOf(llmHandler(llmCtx({ prompt: "rate", json: schema }, { llm })));
    expect(notJson.message).toMatch(/not valid JSON/);
    expect(notJson.details.answer).toBe("not json at all");
  });

  it("maps endpoint errors: 401 user, 429 operational with Retry-After, 500 operational", async () => {
    const replies: FakeReply[] = [
      { status: 401, body: { error: { message: "Incorrect API key provided" } } },
      {
        status: 429,
        body: { error: { message: "Rate limit reached" } },
        headers: { "retry-after": "7" },
      },
      { status: 500, body: { error: { message: "overloaded" } } },
      { status: 404, body: { error: { message: "model not found" } } },
    ];
    const llm = await fakeLlm((_, i) => replies[i]!);
    const auth = await failureOf(llmHandler(llmCtx({ prompt: "x" }, { llm })));
    expect(auth).toMatchObject({ failureClass: "user" });
    expect(auth.message).toMatch(/401: Incorrect API key provided \(check the API key secret\)/);
    const limited = await failureOf(llmHandler(llmCtx({ prompt: "x" }, { llm })));
    expect(limited).toMatchObject({ failureClass: "operational", retryAfterMs: 7000 });
    const server = await failureOf(llmHandler(llmCtx({ prompt: "x" }, { llm })));
    expect(server.failureClass).toBe("operational");
    const missing = await failureOf(llmHandler(llmCtx({ prompt: "x" }, { llm })));
    expect(missing.message).toMatch(/check the base URL and the model "fake-model"/);
  });

  it("fails clearly without an endpoint, and refuses a private endpoint that is not allowed", async () => {
    const none = await failureOf(llmHandler(llmCtx({ prompt: "x" }, {})));
    expect(none.message).toMatch(/No LLM endpoint is configured/);
    const llm = await fakeLlm(() => ({ content: "x" }));
    const blocked = await failureOf(
      llmHandler(llmCtx({ prompt: "x" }, { llm, policy: { ...policy, allowedPrivateHosts: [] } })),
    );
    expect(blocked.failureClass).toBe("user");
    expect(blocked.message).toMatch(/loopback/);
    expect(openai!.bodies).toHaveLength(0);
  });

  it("parses fenced and plain JSON only", () => {
    expect(parseJsonAnswer(' {"a":1} ')).toEqual({ ok: true, value: { a: 1 } });
    expect(parseJsonAnswer("```\n[1]\n```")).toEqual({ ok: true, value: [1] });
    expect(parseJsonAnswer('Sure! {"a":1}').ok).toBe(false);
  });
});

describe("agent step", () => {
  function agentCtx(
    config: z.input<typeof AgentConfig>,
    overrides: Partial<ActionContext<z.output<typeof AgentConfig>>>,
  ) {
    return makeActionContext(AgentConfig, config, { policy, ...overrides });
  }

  it("calls an MCP tool and a workflow tool, feeds results back, and returns the answer with a transcript", async () => {
    mcp = await startFakeMcp("sse");
    const invoked: Array<{ ref: string; input: unknown }> = [];
    const llm = await fakeLlm((req, i) => {
      if (i === 0) {
        const names = req.tools!.map((t) => t.function.name);
        expect(names).toEqual(["workflow_lookup-customer", "add", "echo", "explode"]);
        return {
          content: null,
          toolCalls: [
            { name: "add", arguments: { a: 2, b: 40 } },
            { name: "workflow_lookup-customer", arguments: { id: "c1" } },
          ],
          usage: [100, 20],
        };
      }
      const toolMessages = req.messages.filter((m) => m.role === "tool").map((m) => m.content);
      expect(toolMessages).toEqual(["42", '{"name":"Ada","tier":"gold"}']);
      return { content: "Ada (gold) gets 42 points.", usage: [150, 10] };
    });
    const out = await agentHandler(
      agentCtx(
        {
          goal: "Score customer c1",
          tools: [
            { type: "workflow", workflow: "lookup-customer" },
            { type: "mcp", url: mcp.url, headers: { "X-Api-Key": "k" } },
          ],
        },
        {
          llm,
          invokeWorkflow: async (ref, input) => {
            invoked.push({ ref, input });
            return { name: "Ada", tier: "gold" };
          },
        },
      ),
    );
    expect(out.data).toBe("Ada (gold) gets 42 points.");
    expect(invoked).toEqual([{ ref: "lookup-customer", input: { id: "c1" } }]);
    expect(mcp.calls).toEqual([{ name: "add", arguments: { a: 2, b: 40 } }]);
    expect(mcp.requests.every((r) => r.headers["x-api-key"] === "k")).toBe(true);
    expect(out.meta).toMatchObject({
      iterations: 2,
      usage: { promptTokens: 250, completionTokens: 30, totalTokens: 280 },
      toolCalls: [
        {
          iteration: 1,
          tool: "add",
          source: "mcp",
          arguments: { a: 2, b: 40 },
          result: "42",
          isError: false,
        },
        {
          iteration: 1,
          tool: "workflow_lookup-customer",
          source: "workflow",
          result: '{"name":"Ada","tier":"gold"}',
          isError: false,
        },
      ],
    });
  });

  it("reports tool errors, unknown tools and bad arguments to the model instead of failing", async () => {
    mcp = await startFakeMcp("json");
    const llm = await fakeLlm((req, i) => {
      if (i === 0) {
        return {
          toolCalls: [
            { name: "explode", arguments: {} },
            { name: "nope", arguments: {} },
            { name: "echo", arguments: "{not json" },
            { name: "workflow_failing", arguments: {} },
          ],
        };
      }
      return {
        content: `saw ${req.messages.filter((m) => m.role === "tool" && m.content?.startsWith("ERROR")).length} errors`,
      };
    });
    const out = await agentHandler(
      agentCtx(
        {
          goal: "try things",
          tools: [
            { type: "mcp", url: mcp.url, tools: ["explode", "echo"] },
            { type: "workflow", workflow: "failing" },
          ],
        },
        { llm, invokeWorkflow: async () => Promise.reject(new Error("child run failed: boom")) },
      ),
    );
    expect(out.data).toBe("saw 4 errors");
    const calls = out.meta!.toolCalls as Array<{ tool: string; isError: boolean; result: string }>;
    expect(calls.map((c) => [c.tool, c.isError])).toEqual([
      ["explode", true],
      ["nope", true],
      ["echo", true],
      ["workflow_failing", true],
    ]);
    expect(calls[3]!.result).toMatch(/child run failed: boom/);
    // Only the allow-listed MCP tools were offered.
    expect(openai!.bodies[0]!.tools!.map((t) => t.function.name)).toEqual([
      "workflow_failing",
      "echo",
      "explode",
    ]);
  });

  it("stops after maxIterations with a user error carrying the transcript", async () => {
    mcp = await startFakeMcp("json");
    const llm = await fakeLlm(() => ({
      toolCalls: [{ name: "add", arguments: { a: 1, b: 1 } }],
      usage: [5, 5],
    }));
    const f = await failureOf(
      agentHandler(
        agentCtx(
          { goal: "loop forever", maxIterations: 3, tools: [{ type: "mcp", url: mcp.url }] },
          { llm },
        ),
      ),
    );
    expect(f.failureClass).toBe("user");
    expect(f.message).toMatch(/within maxIterations \(3\)/);
    expect(openai!.bodies).toHaveLength(3);
    expect(mcp.calls).toHaveLength(3);
    expect(f.details).toMatchObject({ iterations: 3, usage: { totalTokens: 30 } });
    expect((f.details.toolCalls as unknown[]).length).toBe(3);
  });

  it("fails clearly when an MCP server is unreachable or lacks an allow-listed tool", async () => {
    mcp = await startFakeMcp("json");
    const llm = await fakeLlm(() => ({ content: "unused" }));
    const missing = await failureOf(
      agentHandler(
        agentCtx(
          { goal: "x", tools: [{ type: "mcp", url: mcp.url, tools: ["subtract"] }] },
          { llm },
        ),
      ),
    );
    expect(missing.failureClass).toBe("user");
    expect(missing.message).toMatch(/has no tool named subtract \(it offers: add, echo, explode\)/);
    const blocked = await failureOf(
      agentHandler(
        agentCtx({ goal: "x", tools: [{ type: "mcp", url: "http://10.0.0.1/mcp" }] }, { llm }),
      ),
    );
    expect(blocked.failureClass).toBe("user");
    expect(blocked.message).toMatch(/private network address/);
  });
});
