import { hashDefinition, parseDefinitionText, validateDefinition } from "../../../lib/workflow";
import type { Command } from "../command";
import { EXIT } from "../exit-codes";
import { printEnvelope, readInput } from "../io";

/**
 * `sluice validate [file|-]`: validates a JSON or YAML definition locally (no server needed).
 * Envelope `{ ok, status: valid|invalid, workflowHash, errors, warnings }`; exit 0 or 10.
 */
export async function validateCommand(args: string[]): Promise<number> {
  const text = await readInput(args[0]);
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

Validates a definition from a file or stdin without contacting a server. Prints
{ ok, status: valid|invalid, workflowHash, errors, warnings }; every error names its
JSON path (and line/column for syntax errors).
Exit codes: 0 valid, 10 invalid, 40 the file cannot be read.

Examples:
  sluice validate flow.yaml
  cat flow.json | sluice validate`,
  options: {},
  maxPositionals: 1,
  run: ({ positionals }) => validateCommand(positionals),
};
