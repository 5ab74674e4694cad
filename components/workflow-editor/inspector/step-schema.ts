/**
 * The field descriptions the inspector renders, from the same JSON Schema Monaco uses
 * (lib/workflow/json-schema.ts, generated from the zod contracts): each step type's config,
 * the fields every step has (retry, timeout), the workflow's constraints and an input's spec.
 */
import { describeFields, type FieldSpec } from "@/components/forms/schema-fields";
import { STEP_CATALOG } from "@/lib/workflow/catalog";
import { workflowJsonSchema } from "@/lib/workflow/json-schema";
import { isPlainObject } from "@/lib/workflow/json";
import { isStepType, type StepType } from "@/lib/workflow/steps";

type Schema = Record<string, unknown>;

const cache = new Map<string, FieldSpec[]>();
function cached(key: string, build: () => FieldSpec[]): FieldSpec[] {
  let hit = cache.get(key);
  if (!hit) cache.set(key, (hit = build()));
  return hit;
}

function root(): Schema {
  return workflowJsonSchema();
}

function stepSchema(): Schema {
  const defs = root().$defs;
  const step = isPlainObject(defs) ? defs.step : undefined;
  return isPlainObject(step) ? step : {};
}

/** Config fields the inspector does not edit as fields: the loop body is edited on the canvas. */
const EDITED_ELSEWHERE: Partial<Record<StepType, string[]>> = { loop: ["body"] };

/** The config fields of a step type (empty for an unknown type). */
export function configFields(type: string): FieldSpec[] {
  if (!isStepType(type)) return [];
  return cached(`config:${type}`, () => {
    const clauses = Array.isArray(stepSchema().allOf) ? (stepSchema().allOf as Schema[]) : [];
    const clause = clauses.find(
      (c) =>
        (c.if as { properties?: { type?: { const?: string } } })?.properties?.type?.const === type,
    );
    const config = (clause?.then as { properties?: { config?: Schema } } | undefined)?.properties
      ?.config;
    return config
      ? describeFields(config, { root: root(), omit: EDITED_ELSEWHERE[type] }, ["config"])
      : [];
  });
}

/** `retry` (a fieldset) and `timeoutMs`, as every step has them. */
export function runPolicyFields(): FieldSpec[] {
  return cached("step", () => {
    const all = describeFields(stepSchema(), { root: root() });
    return all.filter((f) => f.name === "retry" || f.name === "timeoutMs");
  });
}

export function constraintFields(): FieldSpec[] {
  return cached("constraints", () => {
    const props = root().properties as Schema;
    return describeFields(props.constraints as Schema, { root: root() }, ["constraints"]);
  });
}

/** An input's spec fields (type, required, default, description, enum), relative to the input. */
export function inputSpecFields(): FieldSpec[] {
  return cached("input", () => {
    const inputs = (root().properties as Schema).inputs as Schema;
    return describeFields(inputs.additionalProperties as Schema, { root: root() });
  });
}

/** Template modes and secret fields of a type, for the text fields' completions. */
export function fieldTraits(type: string, topField: string) {
  if (!isStepType(type)) return { templates: false, secrets: false };
  const info = STEP_CATALOG[type];
  return {
    templates: info.templateModes[topField] !== "literal",
    secrets: info.secretFields.includes(topField),
  };
}
