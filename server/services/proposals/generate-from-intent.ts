import "server-only";
import type { Queryable } from "@/db/client";
import { applyDefinitionPatch } from "@/lib/workflow/json-patch";
import {
  validateDefinition,
  workflowJsonSchema,
  type ValidateOptions,
  type ValidationIssue,
} from "@/lib/workflow";
import { chatCompletion, LlmError } from "../../integrations/openai-compatible";
import { ValidationError } from "../../errors";
import type { Keys } from "../../keys";
import { loadWorkspaceIntegrations } from "../settings/load-workspace-integrations";
import { parseWorkspaceSettings, readRawSettings } from "../settings/read-settings";
import { ProposalError } from "./errors";

const SYSTEM_PROMPT = [
  "You change Sluice workflow definitions. You receive the current definition, the JSON Schema of",
  "valid definitions and a change request. Answer with ONE JSON object and nothing else: either",
  '{ "definition": <the complete new definition> } or { "patch": [<RFC 6902 operations against',
  "the current definition>] }. Keep step ids that do not change. Never add secrets in clear text:",
  "reference them as {{ secrets.NAME }}.",
].join(" ");

type Candidate = { ok: true; definition: unknown } | { ok: false; problems: string[] };

/** Reads the model's answer: a JSON object with `definition` or `patch`, validated against the base. */
function readAnswer(
  content: string | null,
  base: Record<string, unknown>,
  policy: Pick<ValidateOptions, "forbiddenStepTypes" | "requiredApprovals">,
): Candidate {
  const text = (content ?? "").trim().replace(/^```(?:json)?\s*|\s*```$/g, "");
  let parsed: unknown;
  try {
    parsed = JSON.parse(text);
  } catch (e) {
    return { ok: false, problems: [`The answer is not JSON: ${(e as Error).message}`] };
  }
  const obj = (parsed && typeof parsed === "object" ? parsed : {}) as Record<string, unknown>;
  let definition: unknown;
  if (Array.isArray(obj.patch)) {
    const r = applyDefinitionPatch(base, obj.patch);
    if (!r.ok) return { ok: false, problems: [`The patch failed: ${r.error.message}`] };
    definition = r.definition;
  } else if (obj.definition && typeof obj.definition === "object") {
    definition = obj.definition;
  } else {
    return {
      ok: false,
      problems: ['Answer with { "definition": {…} } or { "patch": […] }'],
    };
  }
  // The workspace policies too, so the model hears about them and can correct its answer.
  const result = validateDefinition(definition, policy);
  const errors = result.issues.filter((i: ValidationIssue) => i.severity === "error");
  if (!result.ok)
    return {
      ok: false,
      problems: errors.map((i) => `${i.path.length ? `${i.path.join(".")}: ` : ""}${i.message}`),
    };
  return { ok: true, definition };
}

/**
 * Turns a natural-language intent into a proposed definition with the workspace's LLM: the model
 * sees the current definition, the catalog's JSON Schema and the intent. An invalid answer is sent
 * back once with its issues; a second invalid answer is refused with every issue listed.
 */
export async function generateFromIntent(
  db: Queryable,
  keys: Keys,
  args: { workspaceId: string; base: Record<string, unknown>; intent: string },
): Promise<unknown> {
  const settings = parseWorkspaceSettings(await readRawSettings(db, args.workspaceId));
  if (!settings.llm)
    throw new ProposalError(
      "LLM_UNAVAILABLE",
      "Proposing from an intent needs an LLM integration (Settings → Integrations); send a definition or a patch instead",
    );
  const { llm } = await loadWorkspaceIntegrations(db, keys, args.workspaceId, ["llm"]);
  const messages: Parameters<typeof chatCompletion>[1]["messages"] = [
    { role: "system", content: SYSTEM_PROMPT },
    {
      role: "user",
      content: JSON.stringify({
        currentDefinition: args.base,
        jsonSchema: workflowJsonSchema(),
        change: args.intent,
      }),
    },
  ];
  let problems: string[] = [];
  for (let attempt = 1; attempt <= 2; attempt++) {
    let content: string | null;
    try {
      const r = await chatCompletion(
        llm!,
        { messages, responseFormat: { type: "json_object" } },
        { outbound: { allowedPrivateHosts: settings.policies.allowedPrivateHosts } },
      );
      content = r.content;
    } catch (e) {
      if (e instanceof LlmError)
        throw new ProposalError("LLM_UNAVAILABLE", `The LLM could not be reached: ${e.message}`);
      throw e;
    }
    const answer = readAnswer(content, args.base, {
      forbiddenStepTypes: settings.policies.forbiddenStepTypes,
      requiredApprovals: settings.policies.requiredApprovals,
    });
    if (answer.ok) return answer.definition;
    problems = answer.problems;
    messages.push(
      { role: "assistant", content },
      {
        role: "user",
        content: `That answer is invalid:\n- ${problems.join("\n- ")}\nAnswer again with one corrected JSON object.`,
      },
    );
  }
  throw new ValidationError(
    `The LLM's proposal is still invalid after one correction: ${problems[0] ?? "unknown problem"}${problems.length > 1 ? ` (and ${problems.length - 1} more)` : ""}`,
    problems.map((message) => ({ path: ["intent"], message })),
  );
}
