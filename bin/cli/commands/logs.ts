import { intFlag } from "../args";
import { connect, type Command } from "../command";
import { usageError } from "../errors";
import { EXIT } from "../exit-codes";
import { listEvents, type RunEvent } from "../follow";
import { ndjsonLine } from "../io";

function print(e: RunEvent): void {
  const { type, ...rest } = e;
  process.stdout.write(ndjsonLine({ type, ...rest }));
}

export const logsCommand: Command = {
  name: "logs",
  summary: "Print a run's events as NDJSON (--follow streams until the run ends)",
  help: `Usage: sluice logs <run_…> [--follow] [--after <event id>]

Prints the run's append-only event history on stdout, one JSON object per line
({ "type", "id", "stepPath", "data", "createdAt" }). With --follow it keeps streaming
(Server-Sent Events, reconnecting with Last-Event-ID) and exits when the run has finished
and every event was printed. --after skips events up to that id.

Exit codes: 0, 10 unknown run, 20 token refused, 40 server unreachable.

Examples:
  sluice logs run_01… | jq -c 'select(.type == "step.failed")'
  sluice logs run_01… --follow`,
  options: { follow: { type: "boolean", short: "f" }, after: { type: "string" } },
  maxPositionals: 1,
  async run({ values, positionals }) {
    const runId = positionals[0];
    if (!runId) throw usageError("Give the run id: sluice logs <run_…>");
    const api = connect();
    let last = intFlag("after", values.after, { min: 0, max: Number.MAX_SAFE_INTEGER }) ?? 0;
    const deliver = (e: RunEvent) => {
      if (e.id <= last) return;
      last = e.id;
      print(e);
    };
    if (!values.follow) {
      for (const e of await listEvents(api, runId, last)) deliver(e);
      return EXIT.ok;
    }
    // The stream ends with `end` once the run is finished and drained; a closed stream without it
    // (the server's lifetime cap) is resumed where it stopped.
    for (;;) {
      let ended = false;
      for await (const m of api.stream(`/runs/${encodeURIComponent(runId)}/events`, {
        lastEventId: String(last),
      })) {
        if (m.event === "end") {
          ended = true;
          break;
        }
        if (m.data) deliver(JSON.parse(m.data) as RunEvent);
      }
      if (ended) return EXIT.ok;
    }
  },
};
