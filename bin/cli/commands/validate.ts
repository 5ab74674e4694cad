import { hashDefinition, parseDefinitionText, validateDefinition } from "../../../lib/workflow";
import { str, type ParsedArgs } from "../args";
import type { Command } from "../command";
import { usageError } from "../errors";
import { EXIT } from "../exit-codes";
import { printEnvelope, readInput } from "../io";

/**
 * The definition's text from exactly one source: `--workflow-path <file>` (RFC §6), a `<file>`
 * argument, `--workflow-json <json>` (inline; `-` is stdin), or stdin when none is given.
 */
async function definitionText({ values, positionals }: ParsedArgs): Promise<string> {
  const sources = [
    str(values, "workflow-path") !== undefined && "--workflow-path",
    positionals[0] !== undefined && "a file argument",
    str(values, "workflow-json") !== undefined && "--workflow-json",
  ].filter((x): x is string => typeof x === "string");
  if (sources.length > 1)
    throw usageError(`Give one definition: ${sources.join(" or ")}, not both`);
  const json = str(values, "workflow-json");
  if (json !== undefined) return json === "-" ? readInput("-") : json;
  return readInput(str(values, "workflow-path") ?? positionals[0]);
}

/**
 * `sluice validate [file|-]`: validates a JSON or YAML definition locally (no server needed).
 * Envelope `{ ok, status: valid|invalid, workflowHash, errors, warnings }`; exit 0 or 10.
 */
export async function validateCommand(args: ParsedArgs): Promise<number> {
  const text = await definitionText(args);
  const parsed = parseDefinitionText(text);
  if (!parsed.ok) {
    printEnvelope({
      ok: false,
      status: "invalid",
      workflowHash: null,
      errors: [
        {
          code: parsed.error.code,
          message: parsed.error.message,
          path: [],
          line: parsed.error.line,
          column: parsed.error.column,
        },
      ],
      warnings: [],
    });
    return EXIT.validation;
  }
  const result = validateDefinition(parsed.value);
  const errors = result.issues.filter((i) => i.severity === "error");
  const warnings = result.issues.filter((i) => i.severity === "warning");
  const ok = result.ok && errors.length === 0 && result.definition !== undefined;
  printEnvelope({
    ok,
    status: ok ? "valid" : "invalid",
    workflowHash: ok ? hashDefinition(result.definition) : null,
    errors,
    warnings,
  });
  return ok ? EXIT.ok : EXIT.validation;
}

export const validateCliCommand: Command = {
  name: "validate",
  summary: "Validate a workflow definition (JSON or YAML) locally, no server needed",
  help: `Usage: sluice validate [<file>|-]
       sluice validate --workflow-path <file>
       sluice validate --workflow-json <json|->

Validates a definition from a file, inline JSON (--workflow-json; "-" reads stdin) or
stdin, without contacting a server. Prints
{ ok, status: valid|invalid, workflowHash, errors, warnings }; every error names its
JSON path (and line/column for syntax errors).
Exit codes: 0 valid, 10 invalid, 40 the file cannot be read.

Examples:
  sluice validate flow.yaml
  sluice validate --workflow-path flow.json
  sluice validate --workflow-json "$(cat flow.json)"
  cat flow.json | sluice validate`,
  options: {
    "workflow-path": { type: "string" },
    "workflow-json": { type: "string" },
  },
  maxPositionals: 1,
  run: (args) => validateCommand(args),
};
