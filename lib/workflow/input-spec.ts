/**
 * The field shape of workflow `inputs` (type, required, default, description, enum), also used by
 * the task step's `outputSchema` and the approval step's `form`. Values are checked against it by
 * inputs.ts.
 */
import { z } from "zod";
import { isJsonValue } from "./json";
import { jsonValue } from "./primitives";

export const INPUT_TYPES = ["string", "number", "boolean", "object", "array"] as const;
export const InputType = z.enum(INPUT_TYPES);
export type InputType = z.infer<typeof InputType>;

/** Whether a value has the JSON type an input declares (numbers must be finite). */
export function matchesInputType(type: InputType, value: unknown): boolean {
  switch (type) {
    case "string":
      return typeof value === "string";
    case "number":
      return typeof value === "number" && Number.isFinite(value);
    case "boolean":
      return typeof value === "boolean";
    case "array":
      return Array.isArray(value) && isJsonValue(value);
    case "object":
      return (
        typeof value === "object" && value !== null && !Array.isArray(value) && isJsonValue(value)
      );
  }
}

export const InputSpec = z
  .strictObject({
    type: InputType.describe("JSON type of the input."),
    required: z
      .boolean()
      .default(false)
      .describe("A run cannot start without it (unless it has a default)."),
    default: jsonValue("Value used when the input is not given.").optional(),
    description: z.string().max(2_000).optional().describe("Help text shown on the run form."),
    enum: z
      .array(jsonValue("Allowed value"))
      .min(1)
      .max(500)
      .optional()
      .describe("Allowed values (shown as a select)."),
  })
  .superRefine((spec, ctx) => {
    if (spec.default !== undefined && !matchesInputType(spec.type, spec.default)) {
      ctx.addIssue({
        code: "custom",
        path: ["default"],
        message: `The default must be of type ${spec.type}.`,
      });
    }
    spec.enum?.forEach((value, i) => {
      if (!matchesInputType(spec.type, value))
        ctx.addIssue({
          code: "custom",
          path: ["enum", i],
          message: `Enum values must be of type ${spec.type}.`,
        });
    });
    if (
      spec.default !== undefined &&
      spec.enum &&
      !spec.enum.some((v) => JSON.stringify(v) === JSON.stringify(spec.default))
    ) {
      ctx.addIssue({
        code: "custom",
        path: ["default"],
        message: "The default must be one of the enum values.",
      });
    }
  });
export type InputSpec = z.infer<typeof InputSpec>;
