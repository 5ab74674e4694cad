import { parseCommandArgs, type ParsedArgs } from "./args";
import type { Command } from "./command";
import { auditCommand } from "./commands/audit";
import { backupCommand, restoreCommand } from "./commands/backup";
import { loginCommand } from "./commands/login";
import { logsCommand } from "./commands/logs";
import { proposalRulesCommand } from "./commands/proposal-rules";
import { proposalsCommand } from "./commands/proposals";
import { proposeCommand } from "./commands/propose";
import { rerunCommand } from "./commands/rerun";
import { resumeCommand } from "./commands/resume";
import { runCommand } from "./commands/run";
import { runsCommand } from "./commands/runs";
import { syncCommand } from "./commands/sync";
import { validateCliCommand } from "./commands/validate";
import { workflowsCommand } from "./commands/workflows";
import { toCliError } from "./errors";
import { EXIT } from "./exit-codes";
import { printEnvelope } from "./io";

export const COMMANDS: readonly Command[] = [
  loginCommand,
  workflowsCommand,
  runCommand,
  resumeCommand,
  runsCommand,
  rerunCommand,
  logsCommand,
  proposeCommand,
  proposalsCommand,
  proposalRulesCommand,
  syncCommand,
  validateCliCommand,
  auditCommand,
  backupCommand,
  restoreCommand,
];

export function usage(): string {
  const width = Math.max(...COMMANDS.map((c) => c.name.length)) + 2;
  return `Usage: sluice <command> [options]        sluice <command> --help for details

Commands:
${COMMANDS.map((c) => `  ${c.name.padEnd(width)}${c.summary}`).join("\n")}
  ${"help".padEnd(width)}Show this help, or a command's: sluice help <command>

Connection: SLUICE_URL and SLUICE_TOKEN, else what \`sluice login\` stored in
$XDG_CONFIG_HOME/sluice/config.json (~/.config/sluice/config.json).
Output: one JSON envelope on stdout; progress as NDJSON on stderr (run, resume, sync).
Exit codes: 0 success (including needs_approval and cancelled runs), 10 validation failure,
20 contract violation (hash or token mismatch), 30 policy violation, 40 internal error.
Docs: docs/cli.md`;
}

export async function main(argv: string[]): Promise<number> {
  const [name, ...rest] = argv;
  if (name === undefined || name === "help" || name === "--help" || name === "-h") {
    const topic = name === "help" ? COMMANDS.find((c) => c.name === rest[0]) : undefined;
    process.stdout.write((topic ? topic.help : usage()) + "\n");
    return name === undefined ? EXIT.validation : EXIT.ok;
  }
  const command = COMMANDS.find((c) => c.name === name);
  if (!command) {
    process.stderr.write(`Unknown command "${name}".\n\n${usage()}\n`);
    return EXIT.validation;
  }
  let args: ParsedArgs | null = null;
  try {
    args = parseCommandArgs(rest, command.options, command.maxPositionals ?? 0);
    if (args.values.help) {
      process.stdout.write(command.help + "\n");
      return EXIT.ok;
    }
    return await command.run(args);
  } catch (e) {
    const error = toCliError(e);
    printEnvelope(
      command.errorEnvelope
        ? command.errorEnvelope(error, args)
        : { ok: false, error: error.toJSON() },
    );
    return error.exit;
  }
}
