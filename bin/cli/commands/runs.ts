import { intFlag, str } from "../args";
import { connect, type Command } from "../command";
import { EXIT } from "../exit-codes";
import { usageError } from "../errors";
import { printEnvelope } from "../io";

export const runsCommand: Command = {
  name: "runs",
  summary: "List runs (filter by workflow and status); runs diff <a> <b> compares two",
  help: `Usage: sluice runs [--workflow <id|slug> | --inline] [--status <s>[,<s>…]] [--trigger <type>]
                  [--limit <1-200>] [--cursor <nextCursor>]
       sluice runs diff [<a>] <b>

Prints { ok, items, nextCursor } (GET /api/v1/runs), newest first. Statuses: queued,
running, waiting, cancel_requested, completed, failed, cancelled, timed_out. --inline
lists only inline runs (unsaved definitions; workflowId null).

sluice runs diff <a> <b> compares run b with run a step by step (GET /api/v1/runs/<b>/diff?with=<a>):
prints { ok, a, b, sameVersion, input, output, steps, summary } — per step a verdict (same,
different, only_a, only_b), status, duration and capped JSON diffs of input and result;
summary.pathsDiffer with the steps only in a or b, changed branches and loop iteration
counts. With one id, b is compared with the previous run of its workflow. Viewer role.

Examples:
  sluice runs --status failed,timed_out --limit 20
  sluice runs diff run_01a… run_01b… | jq '.summary'
  sluice runs diff run_01b… | jq '.steps[] | select(.verdict != "same") | .path'
  sluice runs --workflow nightly-report | jq -r '.items[].id'`,
  options: {
    workflow: { type: "string" },
    inline: { type: "boolean" },
    status: { type: "string" },
    trigger: { type: "string" },
    limit: { type: "string" },
    cursor: { type: "string" },
  },
  maxPositionals: 3,
  async run({ values, positionals }) {
    if (positionals.length) return diffRuns(positionals);
    const api = connect();
    let workflowId = str(values, "workflow");
    // The runs filter takes an id; a slug is looked up first.
    if (workflowId && !workflowId.startsWith("wf_"))
      workflowId = (await api.get<{ id: string }>(`/workflows/${encodeURIComponent(workflowId)}`))
        .id;
    const page = await api.get<{ items: unknown[]; nextCursor: string | null }>("/runs", {
      workflowId,
      inline: values.inline === true ? "true" : undefined,
      status: str(values, "status"),
      trigger: str(values, "trigger"),
      limit: intFlag("limit", values.limit, { min: 1, max: 200 }),
      cursor: str(values, "cursor"),
    });
    printEnvelope({ ok: true, items: page.items, nextCursor: page.nextCursor });
    return EXIT.ok;
  },
};

/** `sluice runs diff [<a>] <b>`: b against a, or against the previous run of b's workflow. */
async function diffRuns(positionals: string[]): Promise<number> {
  const [verb, ...ids] = positionals;
  if (verb !== "diff" || ids.length < 1 || ids.length > 2)
    throw usageError(
      "Compare two runs with: sluice runs diff <a> <b> (or one id: its previous run)",
    );
  const [a, b] = ids.length === 2 ? ids : [undefined, ids[0]!];
  const diff = await connect().get(`/runs/${encodeURIComponent(b!)}/diff`, { with: a });
  printEnvelope({ ok: true, ...diff });
  return EXIT.ok;
}
