/**
 * JSON Schema of the whole definition, generated from the zod schemas (z.toJSONSchema) for the
 * editor (Monaco completion, hover docs from `.describe()`, inline errors). The step schema is
 * rewritten from zod's `oneOf` into one object with `if type = X then config = …` clauses:
 * editors then complete `type` from an enum, show the right config docs, and report errors
 * against one branch instead of "matches none of 16 alternatives".
 */
import { z } from "zod";
import { CONDITION_OPERATORS, Condition } from "./conditions";
import { WorkflowDefinition } from "./definition";
import { isPlainObject } from "./json";
import { jsonSchemaOverrides } from "./primitives";
import { Step, STEP_TYPES } from "./steps";
import { STEP_CATALOG } from "./catalog";

export type JsonSchema = Record<string, unknown>;

export const WORKFLOW_SCHEMA_ID = "https://sluice.dev/schemas/workflow-definition-v1.json";

let cached: JsonSchema | undefined;

/** The JSON Schema (draft 2020-12) for `schemaVersion: 1` definitions. Built once, then cached. */
export function workflowJsonSchema(): JsonSchema {
  cached ??= buildSchema();
  return cached;
}

function buildSchema(): JsonSchema {
  const registry = z.registry<{ id?: string }>();
  registry.add(Step, { id: "step" });
  registry.add(Condition, { id: "condition" });
  const generated = z.toJSONSchema(WorkflowDefinition, {
    io: "input",
    metadata: registry,
    unrepresentable: "any",
    override: ({ zodSchema, jsonSchema }) => {
      const schema = zodSchema as unknown as z.ZodType;
      const replacement =
        schema === Condition ? conditionSchema() : jsonSchemaOverrides.get(schema);
      if (replacement) {
        for (const key of Object.keys(jsonSchema))
          delete (jsonSchema as Record<string, unknown>)[key];
        Object.assign(jsonSchema, replacement);
      }
      // `.describe()` texts live in the global registry, which a custom `metadata` registry hides.
      const description = z.globalRegistry.get(schema)?.description;
      if (description && jsonSchema.description === undefined) jsonSchema.description = description;
    },
  }) as JsonSchema;
  const defs = isPlainObject(generated.$defs) ? generated.$defs : {};
  defs.step = stepSchema(defs.step);
  return {
    $id: WORKFLOW_SCHEMA_ID,
    title: "Sluice workflow definition",
    ...generated,
    $defs: defs,
  };
}

/** Rewrites `oneOf: [{ type: const X, config: CX, …common }]` into `if/then` per type. */
function stepSchema(generated: unknown): JsonSchema {
  const options =
    isPlainObject(generated) && Array.isArray(generated.oneOf)
      ? generated.oneOf.filter(isPlainObject)
      : [];
  const first = options[0];
  if (!first || !isPlainObject(first.properties))
    throw new Error("workflowJsonSchema: unexpected step schema shape from zod");
  const common = { ...first.properties };
  const clauses = options.map((option) => {
    const props = option.properties as Record<string, JsonSchema>;
    const type = (props.type as { const?: string }).const!;
    return {
      if: { properties: { type: { const: type } }, required: ["type"] },
      then: {
        properties: {
          config: {
            ...props.config,
            description: `${STEP_CATALOG[type as keyof typeof STEP_CATALOG].label}: ${STEP_CATALOG[type as keyof typeof STEP_CATALOG].description}`,
          },
        },
      },
    };
  });
  return {
    type: "object",
    description: "A step. Its config depends on its type.",
    properties: {
      ...common,
      type: {
        type: "string",
        enum: [...STEP_TYPES],
        description: STEP_TYPES.map((t) => `${t}: ${STEP_CATALOG[t].description}`).join("\n"),
      },
      config: { type: "object", description: "Configuration for the step's type." },
    },
    required: ["id", "type"],
    additionalProperties: false,
    allOf: clauses,
  };
}

/** Hand-written because the zod Condition is a custom schema (for precise error messages). */
function conditionSchema(): JsonSchema {
  const self = { $ref: "#/$defs/condition" };
  const any = { description: "Any JSON value; templates allowed." };
  const operators = Object.fromEntries(
    CONDITION_OPERATORS.map((op) => {
      if (op === "exists")
        return [op, { type: "boolean", description: "true: the value is present and not null." }];
      if (op === "in")
        return [
          op,
          {
            type: ["array", "string"],
            description: "The value equals one of these (or a template yielding an array).",
          },
        ];
      if (op === "matches") {
        return [
          op,
          {
            description: "Regex (max 256 chars; no back-references or nested quantifiers).",
            anyOf: [
              { type: "string" },
              {
                type: "object",
                properties: {
                  pattern: { type: "string" },
                  flags: { type: "string", pattern: "^[imsu]*$" },
                },
                required: ["pattern"],
                additionalProperties: false,
              },
            ],
          },
        ];
      }
      return [op, any];
    }),
  );
  return {
    description: Condition.description,
    anyOf: [
      {
        type: "object",
        properties: {
          ref: { type: "string", description: "Path such as steps.check.output.data (no braces)." },
          ...operators,
        },
        required: ["ref"],
        additionalProperties: false,
        maxProperties: 2,
      },
      {
        type: "object",
        properties: { all: { type: "array", items: self, minItems: 1 } },
        required: ["all"],
        additionalProperties: false,
      },
      {
        type: "object",
        properties: { any: { type: "array", items: self, minItems: 1 } },
        required: ["any"],
        additionalProperties: false,
      },
      { type: "object", properties: { not: self }, required: ["not"], additionalProperties: false },
    ],
  };
}
