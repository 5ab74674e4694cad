/**
 * Import and export of definitions as JSON or YAML (SPEC §3). Syntax errors carry 1-based line
 * and column. YAML is read with the YAML 1.2 core schema (so `yes`/`no` stay strings), duplicate
 * keys are errors, and aliases are capped so a "billion laughs" document cannot expand.
 */
import { parseDocument, stringify } from "yaml";
import { isJsonValue, isPlainObject, jsonProblem } from "./json";
import { validateDefinition, type ValidateOptions, type ValidationResult } from "./validate";

export const DEFINITION_FORMATS = ["json", "yaml"] as const;
export type DefinitionFormat = (typeof DEFINITION_FORMATS)[number];

/** Texts longer than this are refused before parsing (a 1,000-step definition is ~300 KB). */
export const MAX_DEFINITION_TEXT_LENGTH = 5 * 1024 * 1024;

export interface SyntaxIssue {
  readonly code: "INVALID_JSON" | "INVALID_YAML" | "TEXT_TOO_LARGE" | "EMPTY_TEXT";
  readonly message: string;
  /** 1-based. */
  readonly line?: number;
  /** 1-based. */
  readonly column?: number;
}

export type ParseTextResult =
  | { readonly ok: true; readonly value: unknown; readonly format: DefinitionFormat }
  | { readonly ok: false; readonly error: SyntaxIssue; readonly format: DefinitionFormat };

/** JSON when the first non-blank character is `{` or `[`, else YAML. */
export function detectFormat(text: string): DefinitionFormat {
  return /^\s*[{[]/.test(text) ? "json" : "yaml";
}

/** Parses text to a plain value (no validation). Never throws. */
export function parseDefinitionText(
  text: string,
  format: DefinitionFormat | "auto" = "auto",
): ParseTextResult {
  const chosen = format === "auto" ? detectFormat(text) : format;
  if (text.length > MAX_DEFINITION_TEXT_LENGTH) {
    return {
      ok: false,
      format: chosen,
      error: {
        code: "TEXT_TOO_LARGE",
        message: `The text is ${text.length} characters; definitions are at most ${MAX_DEFINITION_TEXT_LENGTH}.`,
      },
    };
  }
  if (text.trim() === "")
    return {
      ok: false,
      format: chosen,
      error: { code: "EMPTY_TEXT", message: "The text is empty; paste a workflow definition." },
    };
  return chosen === "json" ? parseJsonText(text) : parseYamlText(text);
}

function parseJsonText(text: string): ParseTextResult {
  try {
    return { ok: true, format: "json", value: JSON.parse(text) as unknown };
  } catch {
    // Engines word and place JSON.parse errors differently; locate the error ourselves.
    const found = locateJsonError(text);
    const { line, column } = lineColumn(text, found.offset);
    return {
      ok: false,
      format: "json",
      error: {
        code: "INVALID_JSON",
        message: `Invalid JSON at line ${line}, column ${column}: ${found.message}.`,
        line,
        column,
      },
    };
  }
}

function parseYamlText(text: string): ParseTextResult {
  const doc = parseDocument(text, {
    uniqueKeys: true,
    prettyErrors: true,
    version: "1.2",
    schema: "core",
    strict: true,
  });
  const error = doc.errors[0] ?? doc.warnings.find((w) => w.code === "TAG_RESOLVE_FAILED");
  if (error) {
    const pos = error.linePos?.[0];
    const where = pos ? ` at line ${pos.line}, column ${pos.col}` : "";
    const message = error.message.split("\n")[0]!.replace(/ at line \d+, column \d+:?$/, "");
    return {
      ok: false,
      format: "yaml",
      error: {
        code: "INVALID_YAML",
        message: `Invalid YAML${where}: ${message}`,
        ...(pos ? { line: pos.line, column: pos.col } : {}),
      },
    };
  }
  try {
    const value = doc.toJS({ maxAliasCount: 100 }) as unknown;
    // `__proto__` keys pass here (as own data members) so the validator reports them like JSON's.
    const problem = value === null || value === undefined ? null : jsonProblem(value, 512, true);
    if (problem)
      return {
        ok: false,
        format: "yaml",
        error: {
          code: "INVALID_YAML",
          message: `Invalid YAML: the document is not plain JSON data (${problem}).`,
        },
      };
    return { ok: true, format: "yaml", value };
  } catch (caught) {
    return {
      ok: false,
      format: "yaml",
      error: { code: "INVALID_YAML", message: `Invalid YAML: ${(caught as Error).message}` },
    };
  }
}

export interface ImportResult extends ValidationResult {
  readonly format: DefinitionFormat;
  /** Set when the text itself could not be parsed (then `issues` is empty). */
  readonly syntaxError?: SyntaxIssue;
}

/** Parses and validates a definition from JSON or YAML text. */
export function importDefinition(
  text: string,
  options: ValidateOptions & { format?: DefinitionFormat | "auto" } = {},
): ImportResult {
  const parsed = parseDefinitionText(text, options.format ?? "auto");
  if (!parsed.ok)
    return { ok: false, issues: [], format: parsed.format, syntaxError: parsed.error };
  return { ...validateDefinition(parsed.value, options), format: parsed.format };
}

/**
 * Serializes a definition as written (no defaults added), JSON with 2-space indentation or block
 * YAML, each ending in a newline. `includeLayout: false` drops the editor layout.
 */
export function exportDefinition(
  definition: unknown,
  format: DefinitionFormat,
  options: { includeLayout?: boolean } = {},
): string {
  if (!isPlainObject(definition) || !isJsonValue(definition))
    throw new TypeError("exportDefinition: the definition must be a plain JSON object.");
  const value = options.includeLayout === false ? withoutLayout(definition) : definition;
  if (format === "json") return `${JSON.stringify(value, null, 2)}\n`;
  return stringify(value, { lineWidth: 0, version: "1.2", aliasDuplicateObjects: false });
}

function withoutLayout(definition: Record<string, unknown>): Record<string, unknown> {
  const { layout: _layout, ...rest } = definition;
  return rest;
}

/** 1-based line and column of a character offset. */
export function lineColumn(text: string, offset: number): { line: number; column: number } {
  let line = 1;
  let lineStart = 0;
  const end = Math.min(offset, text.length);
  for (let i = 0; i < end; i++) {
    if (text.charCodeAt(i) === 10) {
      line += 1;
      lineStart = i + 1;
    }
  }
  return { line, column: end - lineStart + 1 };
}

// ---------------------------------------------------------------------------------------------
// A tiny JSON checker used only after JSON.parse failed, to find where and why.
// ---------------------------------------------------------------------------------------------

class JsonSyntax extends Error {
  constructor(
    message: string,
    readonly offset: number,
  ) {
    super(message);
  }
}

export function locateJsonError(text: string): { offset: number; message: string } {
  let i = 0;
  const ws = () => {
    while (i < text.length && " \t\n\r".includes(text[i]!)) i++;
  };
  const fail = (expected: string): never => {
    throw new JsonSyntax(
      i >= text.length
        ? `unexpected end of text, expected ${expected}`
        : `unexpected ${JSON.stringify(text[i])}, expected ${expected}`,
      i,
    );
  };
  const literal = (word: string) => {
    if (text.startsWith(word, i)) i += word.length;
    else fail("a value");
  };
  const string = () => {
    i++; // opening quote
    while (i < text.length && text[i] !== '"') {
      const c = text.charCodeAt(i);
      if (c < 0x20) throw new JsonSyntax("control character in string (escape newlines as \\n)", i);
      if (text[i] === "\\") {
        const e = text[i + 1];
        if (e === "u") {
          if (!/^[0-9a-fA-F]{4}$/.test(text.slice(i + 2, i + 6)))
            throw new JsonSyntax("invalid \\u escape", i);
          i += 6;
          continue;
        }
        if (e === undefined || !'"\\/bfnrt'.includes(e))
          throw new JsonSyntax(`invalid escape "\\${e ?? ""}"`, i);
        i += 2;
        continue;
      }
      i++;
    }
    if (i >= text.length) throw new JsonSyntax("unterminated string", i);
    i++;
  };
  const number = () => {
    const m = /^-?(0|[1-9]\d*)(\.\d+)?([eE][+-]?\d+)?/.exec(text.slice(i, i + 400));
    if (!m) fail("a number");
    i += m![0].length;
  };
  const value = (depth: number): void => {
    if (depth > 512) throw new JsonSyntax("nesting is too deep", i);
    ws();
    const c = text[i];
    if (c === "{") return object(depth);
    if (c === "[") return array(depth);
    if (c === '"') return string();
    if (c === "t") return literal("true");
    if (c === "f") return literal("false");
    if (c === "n") return literal("null");
    if (c === "-" || (c !== undefined && c >= "0" && c <= "9")) return number();
    if (c === "'") throw new JsonSyntax("strings use double quotes in JSON", i);
    fail("a value");
  };
  const object = (depth: number) => {
    i++;
    ws();
    if (text[i] === "}") return void i++;
    for (;;) {
      ws();
      if (text[i] !== '"')
        fail(text[i] === "}" ? 'a key (no trailing comma before "}")' : "a double-quoted key");
      string();
      ws();
      if (text[i] !== ":") fail('":"');
      i++;
      value(depth + 1);
      ws();
      if (text[i] === ",") {
        i++;
        continue;
      }
      if (text[i] === "}") return void i++;
      fail('"," or "}"');
    }
  };
  const array = (depth: number) => {
    i++;
    ws();
    if (text[i] === "]") return void i++;
    for (;;) {
      ws();
      if (text[i] === "]") fail('a value (no trailing comma before "]")');
      value(depth + 1);
      ws();
      if (text[i] === ",") {
        i++;
        continue;
      }
      if (text[i] === "]") return void i++;
      fail('"," or "]"');
    }
  };
  try {
    value(0);
    ws();
    if (i < text.length) fail("the end of the text");
    return { offset: text.length, message: "invalid JSON" };
  } catch (error) {
    if (error instanceof JsonSyntax) return { offset: error.offset, message: error.message };
    throw error;
  }
}
