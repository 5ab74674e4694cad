/**
 * Walks a zod schema along a path through the raw input, to say which keys a strict object
 * accepts (for "unknown key" messages). Discriminated unions pick the option whose `type`
 * literal matches the raw value.
 */
import { z } from "zod";
import { getAtPath, isPlainObject } from "./json";

export function allowedKeysAt(
  schema: z.ZodType,
  path: ReadonlyArray<string | number>,
  raw: unknown,
): readonly string[] | undefined {
  let current: z.ZodType | undefined = schema;
  for (let i = 0; i <= path.length && current; i++) {
    current = unwrap(current, getAtPath(raw, path.slice(0, i)));
    if (i === path.length) break;
    const segment = path[i]!;
    if (current instanceof z.ZodObject)
      current = (current.shape as Record<string, z.ZodType>)[String(segment)];
    else if (current instanceof z.ZodArray) current = current.element as z.ZodType;
    else if (current instanceof z.ZodRecord) current = current.valueType as z.ZodType;
    else current = undefined;
  }
  return current instanceof z.ZodObject ? Object.keys(current.shape) : undefined;
}

function unwrap(schema: z.ZodType, value: unknown): z.ZodType {
  let current: z.ZodType = schema;
  for (let guard = 0; guard < 20; guard++) {
    if (
      current instanceof z.ZodOptional ||
      current instanceof z.ZodDefault ||
      current instanceof z.ZodPrefault ||
      current instanceof z.ZodNullable
    ) {
      current = current.unwrap() as z.ZodType;
    } else if (current instanceof z.ZodPipe) {
      current = current.in as z.ZodType;
    } else if (current instanceof z.ZodLazy) {
      current = current.unwrap() as z.ZodType;
    } else if (current instanceof z.ZodUnion) {
      const type = isPlainObject(value) ? value.type : undefined;
      const match = (current.options as readonly z.ZodType[]).find(
        (o) =>
          o instanceof z.ZodObject &&
          literalOf((o.shape as Record<string, z.ZodType>).type) === type,
      );
      if (!match) return current;
      current = match;
    } else return current;
  }
  return current;
}

function literalOf(schema: z.ZodType | undefined): unknown {
  return schema instanceof z.ZodLiteral ? schema.value : undefined;
}
