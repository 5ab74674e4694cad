import type { z } from "zod";
import { STEP_CATALOG } from "./catalog";
import { fieldText } from "./issues";
import { describeZodIssue } from "./zod-issues";
import { isPlainObject } from "./json";
import { isStepType } from "./steps";
import { parseTemplate } from "./templates";
import { resolveTemplate, type ResolveOptions, type TemplateContext } from "./template-resolve";

/**
 * Resolves a step's config templates against the run context, honouring the catalog's per-field
 * template modes: `literal` fields are kept as written (code source, loop bodies), `rawOnly`
 * fields are resolved only when the whole field is one `{{ path }}`.
 */
export function resolveStepConfig(
  type: string,
  config: unknown,
  ctx: TemplateContext,
  options: ResolveOptions = {},
): unknown {
  if (!isPlainObject(config)) return resolveTemplate(config, ctx, options) ?? null;
  const modes = isStepType(type) ? STEP_CATALOG[type].templateModes : {};
  const out: Record<string, unknown> = {};
  for (const [key, value] of Object.entries(config)) {
    const mode = modes[key];
    const resolved =
      mode === "literal"
        ? value
        : mode === "rawOnly" && !isLoneTemplate(value)
          ? value
          : resolveTemplate(
              value,
              ctx,
              type === "condition" ? { ...options, keepMissingKeys: true } : options,
            );
    if (resolved !== undefined) out[key] = resolved;
    // A field whose lone template reaches nothing: left out when the field is optional (its
    // default applies), `null` when it is required (e.g. `transform.value`), so the step sees
    // "nothing" as null instead of failing on a value that is not JSON.
    else if (!acceptsUndefined(type, key)) out[key] = null;
  }
  return out;
}

function acceptsUndefined(type: string, key: string): boolean {
  if (!isStepType(type)) return true;
  const schema = STEP_CATALOG[type].config as { shape?: Record<string, z.ZodType> };
  const field = schema.shape?.[key];
  return field ? field.safeParse(undefined).success : true;
}

function isLoneTemplate(value: unknown): boolean {
  return typeof value === "string" && parseTemplate(value).isRaw;
}

/**
 * Checks a resolved config against its type's schema (a template can produce anything). A
 * refusal is one sentence naming the first field and what it needs, not zod's issue array.
 */
export function parseResolvedConfig(
  type: string,
  resolved: unknown,
): { ok: true; config: unknown } | { ok: false; message: string; problem: string } {
  if (!isStepType(type))
    return { ok: false, message: `Unknown step type "${type}".`, problem: "unknown step type" };
  const parsed = STEP_CATALOG[type].config.safeParse(resolved);
  if (parsed.success) return { ok: true, config: parsed.data };
  const [first, ...rest] = parsed.error.issues.map((i) => describeZodIssue(i, { value: resolved }));
  const field = first!.path.length ? `config.${fieldText(first!.path)}` : "config";
  const more = rest.length ? ` (and ${rest.length} more problem${rest.length > 1 ? "s" : ""})` : "";
  const problem = `${field}: ${first!.message}${more}`;
  return {
    ok: false,
    message: `The step's config is invalid after resolving templates: ${problem}.`,
    /** The same without the lead-in, for callers that word their own ("The delay's config…"). */
    problem,
  };
}
