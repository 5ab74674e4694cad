import fs from "node:fs";
import path from "node:path";
import { parseDefinitionText } from "../../../lib/workflow";
import { isObject } from "../args";
import { connect, type Command } from "../command";
import { CliError, usageError } from "../errors";
import { EXIT } from "../exit-codes";
import { printEnvelope, progress } from "../io";

const EXTENSIONS = new Set([".json", ".yaml", ".yml"]);

interface SyncAnswer {
  dryRun: boolean;
  prune: boolean;
  applied: boolean;
  summary: Record<string, number>;
  plan: {
    slug: string;
    action: string;
    workflowId: string | null;
    fromVersion: string | null;
    version: string | null;
    hash: string | null;
  }[];
}

/**
 * The sync set of a folder: every .json/.yaml/.yml file (not recursive, sorted by name) is one
 * definition; its slug is the file's own `slug` field, else the file name without extension.
 */
export function readSyncDir(dir: string): { file: string; item: Record<string, unknown> }[] {
  let names: string[];
  try {
    names = fs.readdirSync(dir);
  } catch (e) {
    throw usageError(`Cannot read the folder ${dir}: ${(e as Error).message}`);
  }
  const files = names.filter((n) => EXTENSIONS.has(path.extname(n).toLowerCase())).sort();
  if (!files.length) throw usageError(`${dir} has no .json, .yaml or .yml files`);
  return files.map((name) => {
    const file = path.join(dir, name);
    const parsed = parseDefinitionText(fs.readFileSync(file, "utf8"));
    if (!parsed.ok)
      throw new CliError(EXIT.validation, "invalid_file", `${file}: ${parsed.error.message}`, {
        file,
        line: parsed.error.line,
        column: parsed.error.column,
      });
    if (!isObject(parsed.value))
      throw new CliError(
        EXIT.validation,
        "invalid_file",
        `${file}: a definition must be an object`,
        { file },
      );
    const slug = typeof parsed.value.slug === "string" ? parsed.value.slug : path.parse(name).name;
    return { file, item: { ...parsed.value, slug } };
  });
}

export const syncCommand: Command = {
  name: "sync",
  summary: "Make the workspace's workflows match a folder of definitions (prints the plan)",
  help: `Usage: sluice sync <dir> [--dry-run] [--prune]

Declarative sync (PUT /api/v1/workflows/sync): every .json/.yaml/.yml file in <dir> is one
workflow, keyed by its "slug" field or else its file name. The server plans each slug —
create, publish (content changed → new version), unchanged — and lists workspace
workflows absent from the folder as would_delete (deleted only with --prune).

The plan is always computed first (a dry run) and printed on stderr, one NDJSON line per
slug ({ "type": "sync.plan", slug, action, … }); then, unless --dry-run, it is applied in
one transaction. stdout: { ok, dryRun, applied, summary, plan, files }.
Exit codes: 0, 10 invalid file or definition (nothing written; details.issues name each
path as workflows.<i>…), 20 token refused or a slug taken meanwhile (409), 30 role too low.

Examples:
  sluice sync ./workflows --dry-run
  sluice sync ./workflows`,
  options: { "dry-run": { type: "boolean" }, prune: { type: "boolean" } },
  maxPositionals: 1,
  async run({ values, positionals }) {
    const dir = positionals[0];
    if (!dir) throw usageError("Give the folder: sluice sync <dir>");
    const entries = readSyncDir(dir);
    const workflows = entries.map((e) => e.item);
    const prune = values.prune === true;
    const api = connect();
    const put = async (dryRun: boolean) =>
      (
        await api.request<SyncAnswer>("PUT", "/workflows/sync", {
          body: { workflows, dryRun, prune },
        })
      ).body;
    const plan = await put(true);
    for (const p of plan.plan) progress({ type: "sync.plan", ...p });
    progress({ type: "sync.summary", dryRun: true, ...plan.summary });
    const result = values["dry-run"] ? plan : await put(false);
    if (!result.dryRun) progress({ type: "sync.applied", ...result.summary });
    printEnvelope({
      ok: true,
      dryRun: result.dryRun,
      prune: result.prune,
      applied: result.applied,
      summary: result.summary,
      plan: result.plan,
      files: entries.map((e) => ({ file: e.file, slug: e.item.slug })),
    });
    return EXIT.ok;
  },
};
