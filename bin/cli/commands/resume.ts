import { isObject, str } from "../args";
import { connect, type Command } from "../command";
import { CliError, usageError } from "../errors";
import { exitForEnvelope } from "../exit-codes";
import { fetchEnvelope, listEvents, waitForOutcome } from "../follow";
import { printEnvelope, progress, readStdin } from "../io";
import { failedRunEnvelope, progressEvent } from "./run";

const DECISIONS = { approve: true, deny: false } as const;

/** `--execution-id/--resume-token/--decision/--reason/--form`, or the same keys as JSON on stdin. */
export function buildResumeRequest(
  values: Record<string, string | boolean | undefined>,
  stdin: unknown,
) {
  if (stdin !== null && !isObject(stdin))
    throw usageError(
      "The request on stdin must be a JSON object: { executionId, resumeToken, decision }",
    );
  const req = (stdin ?? {}) as Record<string, unknown>;
  const pick = (flag: string, key: string) => {
    const v = str(values, flag) ?? req[key];
    if (v !== undefined && typeof v !== "string") throw usageError(`${key} must be a string`);
    return v;
  };
  const executionId = pick("execution-id", "executionId");
  const resumeToken = pick("resume-token", "resumeToken");
  const decision = pick("decision", "decision");
  const reason = pick("reason", "reason");
  const form = formOf(str(values, "form"), req.form);
  if (!executionId) throw usageError("Give --execution-id <run_…> (the envelope's executionId)");
  if (!resumeToken)
    throw usageError(
      "Give --resume-token <wrf_rt_…> (the envelope's requiresApproval.resumeToken)",
    );
  if (decision !== "approve" && decision !== "deny")
    throw usageError(`--decision must be approve or deny, got ${JSON.stringify(decision ?? null)}`);
  // A denial carries a reason (the server refuses one without it too); say so before any request.
  if (decision === "deny" && !reason?.trim())
    throw usageError('Denying needs a reason: add --reason "<why>" (or "reason" on stdin)', {
      issues: [{ path: ["reason"], message: "Required when denying" }],
    });
  return {
    executionId,
    resumeToken,
    approve: DECISIONS[decision],
    ...(reason ? { reason } : {}),
    ...(form ? { form } : {}),
    wait: values.wait !== false,
  };
}

/** The gate's form values: `--form '{"ticket":"OPS-1"}'`, or a `form` object on stdin. */
function formOf(flag: string | undefined, fromStdin: unknown): Record<string, unknown> | null {
  let form: unknown = fromStdin;
  if (flag !== undefined) {
    try {
      form = JSON.parse(flag);
    } catch (e) {
      throw usageError(`--form must be a JSON object: ${(e as Error).message}`);
    }
  }
  if (form === undefined || form === null) return null;
  if (!isObject(form)) throw usageError("--form must be a JSON object of field values");
  return form;
}

export const resumeCommand: Command = {
  name: "resume",
  summary: "Approve or deny a run's approval gate, then wait for the outcome",
  help: `Usage: sluice resume --execution-id <run_…> --resume-token <wrf_rt_…> --decision approve|deny
                    [--reason <text>] [--form <json>] [--no-wait]

Decides the gate the resume token names (POST /api/v1/runs/{id}/approve), then follows
the run like \`sluice run\` until it finishes or stops at the next gate: the envelope on
stdout (with "decision"), the run's new events as NDJSON on stderr. Denying needs a
--reason: without one the command exits 10 and sends nothing. A gate with a form
(requiresApproval.form) takes its values as --form, a JSON object; they are ignored when
denying. The same keys are accepted as JSON on stdin
({ "executionId", "resumeToken", "decision", "reason", "form" }).

Exit codes: as \`sluice run\`; 10 also for --decision deny without --reason; 20 when the
token does not match the gate (or the gate was already decided or expired); 30 when you
may not decide it (e.g. your own run).

Examples:
  sluice resume --execution-id run_01… --resume-token wrf_rt_… --decision approve
  sluice resume --execution-id run_01… --resume-token wrf_rt_… --decision deny --reason "not today"`,
  options: {
    "execution-id": { type: "string" },
    "resume-token": { type: "string" },
    decision: { type: "string" },
    reason: { type: "string" },
    form: { type: "string" },
    wait: { type: "boolean" },
  },
  errorEnvelope: (error, args) =>
    failedRunEnvelope(error, (args && str(args.values, "execution-id")) ?? null),
  async run({ values }) {
    let stdin: unknown = null;
    if (str(values, "execution-id") === undefined) {
      const text = (await readStdin()).trim();
      if (text) {
        try {
          stdin = JSON.parse(text);
        } catch (e) {
          throw usageError(`The request on stdin is not valid JSON: ${(e as Error).message}`);
        }
      }
    }
    const req = buildResumeRequest(values, stdin);
    const api = connect();
    const runId = encodeURIComponent(req.executionId);
    // Only the events after the decision are news: start from the current end of the history.
    const before = await listEvents(api, req.executionId, 0);
    const after = before.length ? before[before.length - 1]!.id : 0;
    const { body: decision } = await api.request("POST", `/runs/${runId}/approve`, {
      body: {
        approve: req.approve,
        resumeToken: req.resumeToken,
        reason: req.reason,
        ...(req.form ? { form: req.form } : {}),
      },
    });
    progress({ type: "cli.decided", runId: req.executionId, ...decision });
    try {
      const envelope = req.wait
        ? (await waitForOutcome(api, req.executionId, { after, onEvent: progressEvent })).envelope
        : await fetchEnvelope(api, req.executionId);
      printEnvelope({ ...envelope, decision });
      return exitForEnvelope(envelope);
    } catch (e) {
      if (e instanceof CliError) {
        printEnvelope(failedRunEnvelope(e, req.executionId));
        return e.exit;
      }
      throw e;
    }
  },
};
