import { randomUUID } from "node:crypto";
import readline from "node:readline/promises";
import { isObject, jsonFlag, str } from "../args";
import { connect, type Command } from "../command";
import { CliError, usageError } from "../errors";
import { EXIT } from "../exit-codes";
import { printEnvelope, progress } from "../io";

interface Idempotency {
  key: string | null;
  sentAs: string | null;
  originalKey: string | null;
  repeatsOriginal: boolean;
  note: string;
}
interface Preview {
  runId: string;
  version: string;
  fromStepId: string | null;
  rerun: { stepId: string; type: string; sideEffect: boolean; idempotency?: Idempotency }[];
  reused: string[];
}

/** The side effects a rerun repeats, one line each, for the person confirming it. */
export function describeRepeats(p: Preview): string {
  const effects = p.rerun.filter((s) => s.sideEffect);
  const head = `Rerun of ${p.runId} on version ${p.version}: ${p.rerun.length} step(s) run again${
    p.reused.length ? `, ${p.reused.length} reused` : ""
  }.`;
  if (!effects.length) return `${head}\nNo side-effecting step repeats.`;
  const lines = effects.map((s) => {
    const i = s.idempotency;
    const key = i?.key
      ? `key ${i.key}${i.originalKey ? ` (original ${i.originalKey})` : ""}`
      : "no idempotency key";
    return `  - ${s.stepId} (${s.type}): ${key}. ${i?.note ?? ""}`.trimEnd();
  });
  return `${head}\nThese steps affect the outside world and will repeat:\n${lines.join("\n")}`;
}

async function confirm(question: string): Promise<boolean> {
  const rl = readline.createInterface({ input: process.stdin, output: process.stderr });
  try {
    return /^y(es)?$/i.test((await rl.question(question)).trim());
  } finally {
    rl.close();
  }
}

export const rerunCommand: Command = {
  name: "rerun",
  summary: "Rerun a run (whole or from a step); --dry-run shows what would repeat",
  help: `Usage: sluice rerun <runId> [--from <stepId>] [--version pinned|current]
                    [--input '<json object>'] [--dry-run] [--yes]

First asks the server what the rerun would repeat (GET /api/v1/runs/<id>/rerun/preview):
the steps that run again and, for each side-effecting one (http, notify, script, llm, agent,
tool, emit_event, propose_change), the idempotency key it would send (<new run id> stands for
the rerun's id), the original run's key, and whether a receiver can recognise the repeat.

--dry-run   print that preview as { ok, dryRun: true, … } and start nothing (viewer role).
Otherwise the list goes to stderr and the CLI asks "Rerun? [y/N]" on a terminal; without a
terminal (a script, CI, an agent) it refuses with exit 10 unless --yes confirms. A confirmed
rerun prints { ok, runId, status, version, reran, repeated } (editor role).

Examples:
  sluice rerun run_01h… --dry-run | jq '.rerun[] | select(.sideEffect)'
  sluice rerun run_01h… --from charge --yes`,
  options: {
    from: { type: "string" },
    version: { type: "string" },
    input: { type: "string" },
    "dry-run": { type: "boolean" },
    yes: { type: "boolean", short: "y" },
  },
  maxPositionals: 1,
  async run({ values, positionals }) {
    const runId = positionals[0];
    if (!runId) throw usageError("Name the run to rerun: sluice rerun <runId>");
    const version = str(values, "version");
    if (version !== undefined && version !== "pinned" && version !== "current")
      throw usageError(`--version is pinned or current, not "${version}"`);
    const inputText = str(values, "input");
    const input = inputText === undefined ? undefined : jsonFlag("input", inputText);
    if (input !== undefined && !isObject(input))
      throw usageError("--input must be a JSON object (the rerun's input)");
    const fromStepId = str(values, "from");
    const api = connect();
    const id = encodeURIComponent(runId);
    const preview = await api.get<Preview>(`/runs/${id}/rerun/preview`, { fromStepId, version });
    if (values["dry-run"] === true) {
      printEnvelope({ ok: true, dryRun: true, ...preview });
      return EXIT.ok;
    }
    const repeated = preview.rerun.filter((s) => s.sideEffect);
    if (values.yes !== true) {
      if (!process.stdin.isTTY)
        throw new CliError(
          EXIT.validation,
          "confirmation_required",
          `The rerun would repeat ${repeated.length} side-effecting step(s); pass --yes to confirm without a terminal, or --dry-run to only look`,
          { preview },
        );
      process.stderr.write(describeRepeats(preview) + "\n");
      if (!(await confirm("Rerun? [y/N] "))) {
        printEnvelope({ ok: false, error: { code: "declined", message: "Rerun not confirmed" } });
        return EXIT.validation;
      }
    } else progress({ type: "rerun_preview", ...preview });
    const { body } = await api.request<Record<string, unknown>>("POST", `/runs/${id}/rerun`, {
      body: {
        version: version ?? "pinned",
        ...(fromStepId ? { fromStepId } : {}),
        ...(input !== undefined ? { input } : {}),
        idempotencyKey: `cli-rerun-${randomUUID()}`,
      },
    });
    printEnvelope({ ok: true, ...body, repeated });
    return EXIT.ok;
  },
};
