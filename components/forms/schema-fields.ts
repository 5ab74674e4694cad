/**
 * JSON Schema → field descriptions: what a schema-driven form renders for each property. The
 * schemas come from zod through `z.toJSONSchema` (lib/workflow/json-schema.ts builds the step
 * configs' ones), so the field list, labels, ranges, defaults and help texts follow the zod
 * contracts without a second description of them. Pure, unit-tested.
 */

type Schema = Record<string, unknown>;

interface FieldBase {
  /** Property name. */
  readonly name: string;
  /** Path from the described object, e.g. ["approvers", "roles"]. */
  readonly path: readonly string[];
  readonly label: string;
  readonly description?: string;
  readonly required: boolean;
  /** The schema's default (what an omitted value means). */
  readonly default?: unknown;
}

export type FieldSpec = FieldBase &
  (
    | { readonly kind: "text"; readonly multiline: boolean; readonly maxLength?: number }
    | {
        readonly kind: "number";
        readonly integer: boolean;
        readonly min?: number;
        readonly max?: number;
      }
    | { readonly kind: "boolean" }
    | { readonly kind: "select"; readonly options: readonly string[] }
    /** An array of enum values: one checkbox per option. */
    | { readonly kind: "multiselect"; readonly options: readonly string[] }
    /** An array of strings: one per line. */
    | { readonly kind: "list" }
    /** A fixed set of properties: a nested fieldset. */
    | { readonly kind: "object"; readonly fields: readonly FieldSpec[] }
    /** A structured condition (`$ref` to the condition schema): the condition builder. */
    | { readonly kind: "condition" }
    /** Anything else (free-form JSON, records, unions): a small JSON textarea. */
    | { readonly kind: "json" }
  );

export type FieldKind = FieldSpec["kind"];

export interface DescribeOptions {
  /** The document `$ref`s resolve against (default: the schema itself). */
  readonly root?: Schema;
  /** Property names to leave out (edited elsewhere, e.g. a loop's body on the canvas). */
  readonly omit?: readonly string[];
}

/** Strings longer than this get a textarea (prompts, commands, messages). */
const MULTILINE_OVER = 10_000;

const isSchema = (v: unknown): v is Schema =>
  typeof v === "object" && v !== null && !Array.isArray(v);

const ACRONYMS: Record<string, string> = { url: "URL", id: "ID", json: "JSON", http: "HTTP" };

/** "maxResponseBytes" → "Max response bytes"; "timeoutMs" → "Timeout (ms)"; "on_timeout" → "On timeout". */
export function labelOf(name: string): string {
  const words = name
    .replace(/_/g, " ")
    .replace(/([a-z0-9])([A-Z])/g, "$1 $2")
    .toLowerCase()
    .split(" ")
    .filter(Boolean);
  const unit = { ms: "ms", mb: "MiB", kb: "KiB" }[words[words.length - 1] ?? ""];
  if (unit && words.length > 1) words.splice(-1, 1, `(${unit})`);
  const text = words.map((w) => ACRONYMS[w] ?? w).join(" ");
  return text.charAt(0).toUpperCase() + text.slice(1);
}

function resolve(schema: Schema, root: Schema): Schema {
  let current = schema;
  for (let i = 0; i < 8 && typeof current.$ref === "string"; i++) {
    const target = current.$ref
      .replace(/^#\//, "")
      .split("/")
      .reduce<unknown>((at, key) => (isSchema(at) ? at[key] : undefined), root);
    if (!isSchema(target)) break;
    const { $ref: _ref, ...rest } = current;
    current = { ...target, ...rest };
  }
  return current;
}

function isConditionRef(schema: Schema): boolean {
  return typeof schema.$ref === "string" && /\/condition$/.test(schema.$ref);
}

function typeOf(schema: Schema): string | undefined {
  return typeof schema.type === "string" ? schema.type : undefined;
}

function enumOf(schema: Schema): string[] | undefined {
  return Array.isArray(schema.enum) && schema.enum.every((v) => typeof v === "string")
    ? (schema.enum as string[])
    : undefined;
}

/** One property's field description. */
export function describeField(
  name: string,
  raw: Schema,
  {
    path = [name],
    required = false,
    root = raw,
  }: {
    path?: readonly string[];
    required?: boolean;
    root?: Schema;
  } = {},
): FieldSpec {
  const base: FieldBase = {
    name,
    path,
    label: labelOf(name),
    required,
    ...(typeof raw.description === "string" ? { description: raw.description } : {}),
    ...("default" in raw ? { default: raw.default } : {}),
  };
  if (isConditionRef(raw)) return { ...base, kind: "condition" };
  const schema = resolve(raw, root);
  const type = typeOf(schema);
  const options = enumOf(schema);
  if (options) return { ...base, kind: "select", options };
  switch (type) {
    case "string": {
      const maxLength = typeof schema.maxLength === "number" ? schema.maxLength : undefined;
      return {
        ...base,
        kind: "text",
        multiline: maxLength !== undefined && maxLength > MULTILINE_OVER,
        ...(maxLength !== undefined ? { maxLength } : {}),
      };
    }
    case "integer":
    case "number":
      return {
        ...base,
        kind: "number",
        integer: type === "integer",
        ...(typeof schema.minimum === "number" ? { min: schema.minimum } : {}),
        ...(typeof schema.maximum === "number" ? { max: schema.maximum } : {}),
      };
    case "boolean":
      return { ...base, kind: "boolean" };
    case "array": {
      const items = isSchema(schema.items) ? resolve(schema.items, root) : {};
      const itemOptions = enumOf(items);
      if (itemOptions) return { ...base, kind: "multiselect", options: itemOptions };
      if (typeOf(items) === "string") return { ...base, kind: "list" };
      return { ...base, kind: "json" };
    }
    case "object":
      if (isSchema(schema.properties) && !isSchema(schema.additionalProperties))
        return { ...base, kind: "object", fields: describeFields(schema, { root }, path) };
      return { ...base, kind: "json" };
    default:
      return { ...base, kind: "json" };
  }
}

/** The fields of an object schema, in property order. */
export function describeFields(
  schema: Schema,
  options: DescribeOptions = {},
  basePath: readonly string[] = [],
): FieldSpec[] {
  const root = options.root ?? schema;
  const object = resolve(schema, root);
  const properties = isSchema(object.properties) ? object.properties : {};
  const required = new Set(Array.isArray(object.required) ? (object.required as string[]) : []);
  return Object.entries(properties)
    .filter(([name, value]) => isSchema(value) && !options.omit?.includes(name))
    .map(([name, value]) =>
      describeField(name, value as Schema, {
        path: [...basePath, name],
        required: required.has(name),
        root,
      }),
    );
}

/** The value a field edits inside `value` (undefined when absent). */
export function valueAt(value: unknown, path: readonly string[]): unknown {
  let at = value;
  for (const key of path) {
    if (!isSchema(at) || !Object.hasOwn(at, key)) return undefined;
    at = at[key];
  }
  return at;
}

/** The help line under a field: its description plus what an empty field means. */
export function hintOf(spec: FieldSpec): string | undefined {
  // Descriptions often state their default already ("default 30000").
  const fallback =
    spec.default !== undefined &&
    !/\bdefault\b/i.test(spec.description ?? "") &&
    !(
      typeof spec.default === "object" &&
      spec.default !== null &&
      Object.keys(spec.default).length === 0
    )
      ? `Default: ${JSON.stringify(spec.default)}.`
      : undefined;
  const text = [spec.description, fallback].filter(Boolean).join(" ");
  return text || undefined;
}

/** Text of a list field (one entry per line) ⇄ its array; blank lines are dropped. */
export function listText(value: unknown): string {
  return Array.isArray(value) ? value.map(String).join("\n") : "";
}
export function parseListText(text: string): string[] | undefined {
  const items = text
    .split("\n")
    .map((s) => s.trim())
    .filter(Boolean);
  return items.length ? items : undefined;
}
