import { z } from "zod";
import type { StepConfig } from "@/lib/workflow/steps";
import {
  LlmError,
  type ChatMessage,
  type ResponseFormat,
} from "@/server/integrations/openai-compatible";
import { failureFromLlm, noLlmFailure, outboundPolicy, remainingMs, userFailure } from "./failures";
import { budgetedChatCompletion } from "./llm-budget";
import type { ActionHandler } from "./types";

export type LlmStepConfig = StepConfig<"llm">;

/** One model call may legitimately take minutes; the step deadline still applies. */
export const LLM_STEP_TIMEOUT_MS = 300_000;
const JSON_INSTRUCTION = "Answer with one JSON value only, without code fences or commentary.";

/** Models sometimes wrap JSON in a Markdown fence even in JSON mode; accept that, nothing looser. */
export function parseJsonAnswer(
  text: string,
): { ok: true; value: unknown } | { ok: false; error: string } {
  const trimmed = text.trim();
  const fenced = /^```(?:json)?\s*\n([\s\S]*?)\n?```$/i.exec(trimmed);
  try {
    return { ok: true, value: JSON.parse(fenced ? fenced[1]! : trimmed) as unknown };
  } catch (e) {
    return { ok: false, error: (e as Error).message };
  }
}

/** Compiles the config's JSON Schema (zod's converter); an unsupported schema is a config error. */
export function compileJsonSchema(schema: Record<string, unknown>): z.ZodType {
  try {
    return z.fromJSONSchema(schema as Parameters<typeof z.fromJSONSchema>[0]);
  } catch (e) {
    throw userFailure(`"json" is not a JSON Schema Sluice can check: ${(e as Error).message}`, {
      field: "json",
    });
  }
}

export function schemaIssues(error: z.ZodError): string[] {
  return error.issues
    .slice(0, 10)
    .map((i) => `${i.path.length ? i.path.join(".") : "(root)"}: ${i.message}`);
}

/**
 * The `llm` step: one chat completion against the workspace's OpenAI-compatible endpoint
 * (`ctx.llm`), temperature 0 unless configured. With `json: true` it asks for JSON mode and
 * returns the parsed value; with a JSON Schema it asks for structured output and validates the
 * answer against the schema. An answer that is not valid JSON, or does not match the schema, is a
 * user error (a validation failure, not retried) quoting the problem. Token usage goes to meta.
 */
export const llmHandler: ActionHandler<LlmStepConfig> = async (ctx) => {
  if (!ctx.llm) throw noLlmFailure();
  const config = ctx.config;
  const wantsJson = config.json !== false;
  const schema =
    typeof config.json === "object" ? (config.json as Record<string, unknown>) : undefined;
  const validator = schema ? compileJsonSchema(schema) : undefined;

  const system = [config.system, wantsJson ? JSON_INSTRUCTION : undefined]
    .filter(Boolean)
    .join("\n\n");
  const messages: ChatMessage[] = [
    ...(system ? [{ role: "system" as const, content: system }] : []),
    { role: "user", content: config.prompt },
  ];
  const responseFormat: ResponseFormat | undefined = schema
    ? { type: "json_schema", json_schema: { name: "sluice_output", schema, strict: false } }
    : wantsJson
      ? { type: "json_object" }
      : undefined;

  const started = Date.now();
  let result;
  try {
    result = await budgetedChatCompletion(
      ctx,
      {
        model: config.model,
        messages,
        temperature: config.temperature,
        maxTokens: config.maxTokens,
        responseFormat,
      },
      {
        signal: ctx.signal,
        timeoutMs: remainingMs(ctx, LLM_STEP_TIMEOUT_MS),
        outbound: outboundPolicy(ctx),
      },
    );
  } catch (e) {
    if (e instanceof LlmError) throw failureFromLlm(e);
    throw e;
  }
  const meta = {
    model: result.model,
    usage: result.usage,
    finishReason: result.finishReason,
    durationMs: Date.now() - started,
  };
  const answer = result.content ?? "";
  if (!wantsJson) return { data: answer, meta };

  const cutOff =
    result.finishReason === "length" ? " (the answer was cut off: raise maxTokens)" : "";
  const parsed = parseJsonAnswer(answer);
  if (!parsed.ok) {
    throw userFailure(`The model's answer is not valid JSON${cutOff}: ${parsed.error}`, {
      answer: answer.slice(0, 2000),
      ...meta,
    });
  }
  if (validator) {
    const check = validator.safeParse(parsed.value);
    if (!check.success) {
      const issues = schemaIssues(check.error);
      throw userFailure(
        `The model's answer does not match the JSON Schema: ${issues.join("; ")}${cutOff}`,
        {
          issues,
          answer: answer.slice(0, 2000),
          ...meta,
        },
      );
    }
  }
  return { data: parsed.value, meta };
};
