import { intFlag, str } from "../args";
import { connect, type Command } from "../command";
import { EXIT } from "../exit-codes";
import { printEnvelope } from "../io";

export const workflowsCommand: Command = {
  name: "workflows",
  summary: "List workflows, or show one by id or slug",
  help: `Usage: sluice workflows [<id|slug>] [--search <text>] [--tag <tag>]
                       [--status all|published|draft_only|unpublished_changes]
                       [--limit <1-200>] [--cursor <nextCursor>]

Without an argument: { ok, items, nextCursor } (GET /api/v1/workflows), newest first.
With an id (wf_…) or slug: { ok, workflow } — metadata, draft, issues and
currentVersion { id, version, hash } (the hash to pin with run --workflow-hash or to
propose against with propose --base-hash).

Examples:
  sluice workflows --search report
  sluice workflows nightly-report | jq -r .workflow.currentVersion.hash`,
  options: {
    search: { type: "string" },
    tag: { type: "string" },
    status: { type: "string" },
    limit: { type: "string" },
    cursor: { type: "string" },
  },
  maxPositionals: 1,
  async run({ values, positionals }) {
    const api = connect();
    const ref = positionals[0];
    if (ref) {
      const workflow = await api.get(`/workflows/${encodeURIComponent(ref)}`);
      printEnvelope({ ok: true, workflow });
      return EXIT.ok;
    }
    const page = await api.get<{ items: unknown[]; nextCursor: string | null }>("/workflows", {
      search: str(values, "search"),
      tag: str(values, "tag"),
      status: str(values, "status"),
      limit: intFlag("limit", values.limit, { min: 1, max: 200 }),
      cursor: str(values, "cursor"),
    });
    printEnvelope({ ok: true, items: page.items, nextCursor: page.nextCursor });
    return EXIT.ok;
  },
};
