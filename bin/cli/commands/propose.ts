import { ProposalBaseHash } from "../../../lib/schemas/proposals";
import { parseDefinitionText } from "../../../lib/workflow";
import { str } from "../args";
import { connect, type Command } from "../command";
import { usageError } from "../errors";
import { EXIT } from "../exit-codes";
import { printEnvelope, readInput } from "../io";
import { buildProposalEnvelope, type ProposalSource } from "../proposal-envelope";

/** A JSON or YAML document from `@file`, `-`/`@-` (stdin) or inline text. */
async function document(flag: string, value: string): Promise<unknown> {
  const text =
    value === "-" || value === "@-"
      ? await readInput("-")
      : value.startsWith("@")
        ? await readInput(value.slice(1))
        : value;
  const parsed = parseDefinitionText(text);
  if (!parsed.ok)
    throw usageError(`--${flag} is not valid JSON or YAML: ${parsed.error.message}`, {
      line: parsed.error.line,
      column: parsed.error.column,
    });
  return parsed.value;
}

export const proposeCommand: Command = {
  name: "propose",
  summary: "Propose a change to a workflow (a definition, an RFC 6902 patch, or an intent)",
  help: `Usage: sluice propose --workflow-id <id|slug> --base-hash <sha256:…|current> [--summary <line>]
                     [--rationale <text>] (--definition <@file|-|json> | --patch <@file|-|json> | --intent <text>)

Opens a change proposal for review (POST /api/v1/workflows/{id}/proposals); nothing is
published until a reviewer approves and applies it. --base-hash (required) is the published
hash you wrote the change against (sluice workflows <slug> → currentVersion.hash): if the
workflow moved on, the server refuses with stale_base (exit 20). --base-hash current takes
whatever version is current instead, and the proposal records that you asked for it. A
missing or malformed --base-hash exits 10 before any request. --definition and --patch take JSON
or YAML, inline, from @file, or from stdin with "-". --intent needs an LLM configured on the
server. --summary defaults to the intent's first line, else "Change proposed with the sluice CLI".

Prints { ok, status: created|existing, proposal: { id, status, summary, risk, riskReasons,
baseHash, proposedHash, … }, diff: { summary, changes }, url } — diff.changes has one line
per change (step, edge, input, constraint …), diff.summary the counts.
Exit codes: 0 created (or the same open proposal exists), 10 invalid change or unknown
workflow, 20 stale base or token refused, 30 policy violation, self-modification
disabled on the workflow, or role too low.

Examples:
  sluice propose --workflow-id nightly-report --base-hash sha256:… --definition @flow.yaml
  sluice propose --workflow-id wf_01… --base-hash current --patch '[{"op":"replace","path":"/name","value":"Nightly"}]' --summary "Rename"`,
  options: {
    "workflow-id": { type: "string" },
    "base-hash": { type: "string" },
    summary: { type: "string" },
    rationale: { type: "string" },
    definition: { type: "string" },
    patch: { type: "string" },
    intent: { type: "string" },
  },
  async run({ values }) {
    const ref = str(values, "workflow-id");
    if (!ref) throw usageError("Give --workflow-id <id|slug>");
    const base = ProposalBaseHash.safeParse(str(values, "base-hash"));
    if (!base.success)
      throw usageError(
        str(values, "base-hash") === undefined
          ? 'Give --base-hash: the published hash the change was written against (sluice workflows <slug> → currentVersion.hash), or "current"'
          : `--base-hash: ${base.error.issues[0]!.message}`,
      );
    const given = (["definition", "patch", "intent"] as const).filter(
      (k) => values[k] !== undefined,
    );
    if (given.length !== 1)
      throw usageError(
        given.length
          ? `Give exactly one of --definition, --patch or --intent (got ${given.map((g) => `--${g}`).join(" and ")})`
          : "Give the change: --definition, --patch or --intent",
      );
    const intent = str(values, "intent");
    const change =
      given[0] === "intent"
        ? { intent }
        : { [given[0]!]: await document(given[0]!, str(values, given[0]!)!) };
    const summary =
      str(values, "summary") ??
      (intent ? intent.split("\n")[0]!.slice(0, 500) : "Change proposed with the sluice CLI");
    const api = connect();
    const wf = ref.startsWith("wf_")
      ? { id: ref }
      : await api.get<{ id: string }>(`/workflows/${encodeURIComponent(ref)}`);
    const res = await api.request<{ id: string; status: string }>(
      "POST",
      `/workflows/${encodeURIComponent(wf.id)}/proposals`,
      {
        body: {
          summary,
          ...(str(values, "rationale") ? { rationale: str(values, "rationale") } : {}),
          baseHash: base.data,
          ...change,
        },
      },
    );
    // The POST answers id, status and risk; the envelope adds the hashes and the diff.
    const detail = await api.get<ProposalSource>(`/proposals/${encodeURIComponent(res.body.id)}`);
    printEnvelope(
      buildProposalEnvelope(
        detail,
        res.status === 201,
        `${api.baseUrl}/workflows/${wf.id}/proposals/${res.body.id}`,
      ),
    );
    return EXIT.ok;
  },
};
