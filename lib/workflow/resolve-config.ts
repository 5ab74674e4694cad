import type { z } from "zod";
import { STEP_CATALOG } from "./catalog";
import { isPlainObject } from "./json";
import { isStepType } from "./steps";
import {
  parseTemplate,
  resolveTemplate,
  type ResolveOptions,
  type TemplateContext,
} from "./templates";

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
