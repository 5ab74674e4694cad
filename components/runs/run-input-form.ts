/**
 * The manual run form's model: form values per input (strings for text/number/JSON, booleans for
 * checkboxes), and parsing them back into a run input with field-level errors. The type, required
 * and enum checks are the engine's own (lib/workflow/inputs.ts).
 */
import type { InputSpec } from "@/lib/workflow/definition";
import { resolveRunInput } from "@/lib/workflow/inputs";
import type { JsonValue } from "@/lib/workflow/json";

export type FormValue = string | boolean;
export type FormValues = Record<string, FormValue>;

export function controlOf(
  spec: Pick<InputSpec, "type" | "enum">,
): "select" | "checkbox" | "json" | "number" | "text" {
  if (spec.enum) return "select";
  if (spec.type === "boolean") return "checkbox";
  if (spec.type === "object" || spec.type === "array") return "json";
  if (spec.type === "number") return "number";
  return "text";
}

/**
 * Form values for the inputs: from `given` (e.g. a run's input, for a rerun) where present, else
 * the defaults. Select option values are the enum index (enum values can be any JSON).
 */
export function initialFormValues(
  inputs: Readonly<Record<string, InputSpec>>,
  given: Readonly<Record<string, unknown>> = {},
): FormValues {
  const out: FormValues = {};
  for (const [name, spec] of Object.entries(inputs)) {
    const d = Object.prototype.hasOwnProperty.call(given, name) ? given[name] : spec.default;
    switch (controlOf(spec)) {
      case "select": {
        const i =
          d === undefined
            ? -1
            : spec.enum!.findIndex((v) => JSON.stringify(v) === JSON.stringify(d));
        out[name] = i >= 0 ? String(i) : "";
        break;
      }
      case "checkbox":
        out[name] = d === true;
        break;
      case "json":
        out[name] = d === undefined ? "" : JSON.stringify(d, null, 2);
        break;
      default:
        out[name] = d === undefined || d === null ? "" : String(d);
    }
  }
  return out;
}

export type ParsedForm =
  | { ok: true; value: Record<string, JsonValue> }
  | { ok: false; errors: Record<string, string>; formError: string | null };

export function parseFormValues(
  inputs: Readonly<Record<string, InputSpec>>,
  values: FormValues,
  options: { noun?: "input" | "field" } = {},
): ParsedForm {
  const errors: Record<string, string> = {};
  const raw: Record<string, unknown> = {};
  for (const [name, spec] of Object.entries(inputs)) {
    const v = values[name];
    switch (controlOf(spec)) {
      case "select":
        if (typeof v === "string" && v !== "") raw[name] = spec.enum![Number(v)];
        break;
      case "checkbox":
        raw[name] = v === true;
        break;
      case "json":
        if (typeof v === "string" && v.trim() !== "") {
          try {
            raw[name] = JSON.parse(v);
          } catch (e) {
            errors[name] = `Not valid JSON: ${(e as Error).message}`;
          }
        }
        break;
      case "number":
        if (typeof v === "string" && v.trim() !== "") {
          const n = Number(v);
          if (Number.isFinite(n)) raw[name] = n;
          else errors[name] = `“${v}” is not a number`;
        }
        break;
      default:
        if (typeof v === "string" && v !== "") raw[name] = v;
    }
  }
  const resolved = resolveRunInput(inputs, raw, options);
  if (resolved.ok && Object.keys(errors).length === 0) return { ok: true, value: resolved.value };
  let formError: string | null = null;
  if (!resolved.ok)
    for (const issue of resolved.issues) {
      if (issue.name && Object.prototype.hasOwnProperty.call(inputs, issue.name)) {
        errors[issue.name] ??= issue.message;
      } else formError = issue.message;
    }
  return { ok: false, errors, formError };
}
