import fs from "node:fs";
import { parseArgs, type ParseArgsConfig } from "node:util";
import { usageError } from "./errors";

export type OptionSpecs = NonNullable<ParseArgsConfig["options"]>;

export interface ParsedArgs {
  values: Record<string, string | boolean | undefined>;
  positionals: string[];
}

/**
 * Strict flag parsing (node:util parseArgs): an unknown flag, a missing value or a stray
 * argument is a usage error (exit 10) naming the culprit, never silently ignored.
 * `--help`/`-h` is added to every command.
 */
export function parseCommandArgs(
  argv: string[],
  options: OptionSpecs,
  maxPositionals = 0,
): ParsedArgs {
  let parsed;
  try {
    parsed = parseArgs({
      args: argv,
      options: { ...options, help: { type: "boolean", short: "h" } },
      strict: true,
      allowPositionals: true,
      allowNegative: true,
    });
  } catch (e) {
    throw usageError((e as Error).message.split("\n")[0]!);
  }
  const values = parsed.values as ParsedArgs["values"];
  if (!values.help && parsed.positionals.length > maxPositionals)
    throw usageError(
      `Unexpected argument "${parsed.positionals[maxPositionals]}"` +
        (maxPositionals ? "" : " (this command takes flags only)"),
    );
  return { values, positionals: parsed.positionals };
}

/** A string flag's value, or undefined. */
export function str(values: ParsedArgs["values"], name: string): string | undefined {
  const v = values[name];
  return typeof v === "string" ? v : undefined;
}

/**
 * A whole-number flag in [min, max]; "--max-steps=abc" is refused with the flag's name (or
 * `label`, e.g. the stdin field `runtime.policy.maxSteps` the value came from).
 */
export function intFlag(
  name: string,
  value: unknown,
  { min, max }: { min: number; max: number },
  label = `--${name}`,
): number | undefined {
  if (value === undefined) return undefined;
  // A JSON string is not a number: only flags (always text) are converted.
  const n = typeof value === "number" ? value : label.startsWith("--") ? Number(value) : NaN;
  if (!Number.isInteger(n) || n < min || n > max)
    throw usageError(
      `${label} must be a whole number from ${min} to ${max}, got ${JSON.stringify(value)}`,
    );
  return n;
}

/** JSON given inline or as `@file` (`@-` is stdin, read by the caller). */
export function jsonFlag(name: string, text: string): unknown {
  const source = text.startsWith("@") ? fs.readFileSync(text.slice(1), "utf8") : text;
  try {
    return JSON.parse(source) as unknown;
  } catch (e) {
    throw usageError(`--${name} is not valid JSON: ${(e as Error).message}`);
  }
}

/** A JSON object (not an array or a scalar). */
export function isObject(v: unknown): v is Record<string, unknown> {
  return typeof v === "object" && v !== null && !Array.isArray(v);
}
