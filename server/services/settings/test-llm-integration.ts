import "server-only";
import { TestLlmIntegrationInput } from "@/lib/schemas/workspace";
import { chatCompletion } from "../../integrations/openai-compatible";
import { fromZodError } from "../../errors";
import { requireRole, type ServiceContext } from "../context";
import { resolveSecrets } from "../secrets/resolve-secrets";
import { INTEGRATION_TEST_TIMEOUT_MS, probeIntegration } from "./probe-integration";
import { parseWorkspaceSettings, readRawSettings } from "./read-settings";

/** "Test connection" for an LLM endpoint form (admin; the form's values, saved or not). */
export async function testLlmIntegration({ ctx, input }: { ctx: ServiceContext; input: unknown }) {
  const ws = requireRole(ctx, "admin");
  const parsed = TestLlmIntegrationInput.safeParse(input);
  if (!parsed.success) throw fromZodError(parsed.error, "LLM endpoint");
  const llm = parsed.data;
  const { policies } = parseWorkspaceSettings(await readRawSettings(ctx.db, ws.id));
  const values = await resolveSecrets(
    ctx.db,
    ctx.keys,
    ws.id,
    llm.apiKeySecret ? [llm.apiKeySecret] : [],
  );
  const apiKey = llm.apiKeySecret ? values[llm.apiKeySecret] : undefined;
  return probeIntegration(Object.values(values), async () => {
    const started = Date.now();
    const result = await chatCompletion(
      { baseUrl: llm.baseUrl, model: llm.model, apiKey },
      { messages: [{ role: "user", content: "Reply with the single word OK." }], maxTokens: 16 },
      {
        timeoutMs: INTEGRATION_TEST_TIMEOUT_MS,
        outbound: { allowedPrivateHosts: policies.allowedPrivateHosts },
      },
    );
    return `Model ${result.model} answered in ${Date.now() - started} ms (${result.usage.totalTokens} tokens): ${JSON.stringify((result.content ?? "").slice(0, 80))}`;
  });
}
