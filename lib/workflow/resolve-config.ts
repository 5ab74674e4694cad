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
  if (!isPlainObject(config)) return resolveTemplate(config, ctx, options);
  const modes = isStepType(type) ? STEP_CATALOG[type].templateModes : {};
  const out: Record<string, unknown> = {};
  for (const [key, value] of Object.entries(config)) {
    const mode = modes[key];
    if (mode === "literal") out[key] = value;
    else if (mode === "rawOnly")
      out[key] = isLoneTemplate(value) ? resolveTemplate(value, ctx, options) : value;
    else out[key] = resolveTemplate(value, ctx, options);
  }
  return out;
}

function isLoneTemplate(value: unknown): boolean {
  return typeof value === "string" && parseTemplate(value).isRaw;
}
