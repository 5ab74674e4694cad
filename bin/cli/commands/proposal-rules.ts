import { parseDefinitionText } from "../../../lib/workflow";
import { connect, type Command } from "../command";
import { usageError } from "../errors";
import { EXIT } from "../exit-codes";
import { printEnvelope, readInput } from "../io";

/** The rule set document ({ rules, allowedDomains }, JSON or YAML) from a file or stdin ("-"). */
async function ruleSet(source: string | undefined): Promise<unknown> {
  if (!source) throw usageError("Give the rule set: a JSON or YAML file, or - for stdin");
  const parsed = parseDefinitionText(await readInput(source));
  if (!parsed.ok)
    throw usageError(`The rule set is not valid JSON or YAML: ${parsed.error.message}`, {
      line: parsed.error.line,
      column: parsed.error.column,
    });
  const doc = parsed.value;
  if (!doc || typeof doc !== "object" || Array.isArray(doc))
    throw usageError('The rule set must be an object: { "rules": [...], "allowedDomains": [...] }');
  // `get` prints presets too: a file saved from it can be sent back as it is.
  const { presets: _presets, ...rest } = doc as Record<string, unknown>;
  return rest;
}

export const proposalRulesCommand: Command = {
  name: "proposal-rules",
  summary: "The workspace's proposal rules (CEL): get, preview on recent proposals, set",
  help: `Usage: sluice proposal-rules get
       sluice proposal-rules preview <file|->
       sluice proposal-rules set <file|->

A workspace's proposal policy is a list of CEL rules over a proposal's change summary
(docs/proposals.md lists the variables), each { name, expression, effect, message } with
effect refuse, require_admin_review or warn, plus allowedDomains (workspace.allowedDomains in
rules). The file is JSON or YAML: { "rules": [...], "allowedDomains": [...] } — what "get"
prints (its "presets" are ignored when sent back).

get      prints the rules, the allowed domains and presets (GET /api/v1/proposal-rules).
preview  evaluates the file's rules, unsaved, against the last 20 proposals and prints each
         proposal with every rule's verdict and the rules that fire
         (POST /api/v1/proposal-rules/preview). Needs an admin token.
set      replaces the rules with the file's (PUT /api/v1/proposal-rules); audited. Needs an
         admin token.

A rule whose CEL does not compile is refused (exit 10) with its name, line and column, and
nothing is saved.

Exit codes: 0 done, 10 bad file or rule, 20 token refused, 30 not an admin, 40 server
unreachable.

Examples:
  sluice proposal-rules get > rules.json
  sluice proposal-rules preview rules.json | jq '.items[] | {proposalId, fired}'
  sluice proposal-rules set rules.yaml`,
  options: {},
  maxPositionals: 2,
  async run({ positionals }) {
    const [what, source] = positionals;
    if (what === "get") {
      if (source !== undefined) throw usageError("get takes no file: sluice proposal-rules get");
      printEnvelope({ ...(await connect().get("/proposal-rules")) });
      return EXIT.ok;
    }
    if (what !== "preview" && what !== "set")
      throw usageError(
        "Say what to do: sluice proposal-rules get | preview <file|-> | set <file|->",
      );
    const body = await ruleSet(source);
    const api = connect();
    const { body: answer } =
      what === "set"
        ? await api.request("PUT", "/proposal-rules", { body })
        : await api.request("POST", "/proposal-rules/preview", { body });
    printEnvelope({ ...answer });
    return EXIT.ok;
  },
};
