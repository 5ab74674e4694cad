import { QuotaExceededError } from "@/server/errors";
import { chatCompletion } from "@/server/integrations/openai-compatible";
import { StepFailure, type ActionContext } from "./types";

type Completion = typeof chatCompletion;

/**
 * One model call under the workspace's LLM token quotas (ctx.llmBudget): refused before the call
 * when the workflow's monthly tokens are spent, `maxTokens` capped by the per-step limit, the
 * call's tokens counted after it. Quota refusals are user errors (never retried) naming the limit.
 * The llm and agent steps both call the model through here.
 */
export async function budgetedChatCompletion(
  ctx: Pick<ActionContext, "llm" | "llmBudget">,
  request: Parameters<Completion>[1],
  options: Parameters<Completion>[2],
): ReturnType<Completion> {
  const budget = ctx.llmBudget;
  await asStepFailure(() => budget?.beforeCall());
  const result = await chatCompletion(
    ctx.llm!,
    budget ? { ...request, maxTokens: budget.maxTokens(request.maxTokens) } : request,
    options,
  );
  await asStepFailure(() => budget?.afterCall(result.usage.totalTokens), {
    usage: result.usage,
  });
  return result;
}

async function asStepFailure(
  fn: () => Promise<void> | undefined,
  extra: Record<string, unknown> = {},
): Promise<void> {
  try {
    await fn();
  } catch (e) {
    if (e instanceof QuotaExceededError)
      throw new StepFailure(e.message, "user", {
        ...(e.details as Record<string, unknown>),
        ...extra,
      });
    throw e;
  }
}
