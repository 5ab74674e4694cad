import { EXIT } from "./exit-codes";
import { validateCommand } from "./validate";

const USAGE = `Usage: sluice <command> [options]

Commands:
  validate [file|-]   Validate a workflow definition (JSON or YAML) from a file or stdin.
                      Prints { ok, status, workflowHash, errors } and exits 0 (valid) or 10 (invalid).
  help                Show this help.

Exit codes: 0 success, 10 validation failure, 20 contract violation, 30 policy violation, 40 internal error.`;

export async function main(argv: string[]): Promise<number> {
  const [command, ...rest] = argv;
  try {
    switch (command) {
      case "validate":
        return await validateCommand(rest);
      case undefined:
      case "help":
      case "--help":
      case "-h":
        process.stdout.write(USAGE + "\n");
        return command ? EXIT.ok : EXIT.validation;
      default:
        process.stderr.write(`Unknown command "${command}".\n\n${USAGE}\n`);
        return EXIT.validation;
    }
  } catch (e) {
    process.stdout.write(
      JSON.stringify(
        { ok: false, status: "failed", error: { code: "internal", message: (e as Error).message } },
        null,
        2,
      ) + "\n",
    );
    return EXIT.internal;
  }
}
