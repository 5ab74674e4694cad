import { intFlag, str } from "../args";
import { connect, type Command } from "../command";
import { EXIT } from "../exit-codes";
import { printEnvelope } from "../io";

export const runsCommand: Command = {
  name: "runs",
  summary: "List runs (filter by workflow and status)",
  help: `Usage: sluice runs [--workflow <id|slug> | --inline] [--status <s>[,<s>…]] [--trigger <type>]
                  [--limit <1-200>] [--cursor <nextCursor>]

Prints { ok, items, nextCursor } (GET /api/v1/runs), newest first. Statuses: queued,
running, waiting, cancel_requested, completed, failed, cancelled, timed_out. --inline
lists only inline runs (unsaved definitions; workflowId null).

Examples:
  sluice runs --status failed,timed_out --limit 20
  sluice runs --workflow nightly-report | jq -r '.items[].id'`,
  options: {
    workflow: { type: "string" },
    inline: { type: "boolean" },
    status: { type: "string" },
    trigger: { type: "string" },
    limit: { type: "string" },
    cursor: { type: "string" },
  },
  async run({ values }) {
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
