import { isObject, str } from "../args";
import { connect, type Command } from "../command";
import { CliError, usageError } from "../errors";
import { exitForEnvelope } from "../exit-codes";
import { fetchEnvelope, listEvents, waitForOutcome } from "../follow";
import { printEnvelope, progress, readStdin } from "../io";
import { failedRunEnvelope, progressEvent } from "./run";

const DECISIONS = { approve: true, deny: false } as const;
/** The keys of a resume request on stdin. */
const RESUME_KEYS = ["executionId", "resumeToken", "decision", "reason", "form"];

/**
 * What stdin says about the gate: a resume request (known keys only), or the envelope of an
 * earlier `sluice run`/`resume` (it has a `status`), so `sluice run … | sluice resume`
 * decides the gate the run stopped at — its executionId and requiresApproval.resumeToken.
 */
function requestOf(stdin: unknown): Record<string, unknown> {
  if (stdin === null) return {};
  if (!isObject(stdin))
    throw usageError(
      "The request on stdin must be a JSON object: { executionId, resumeToken, decision } or a run envelope",
    );
  // An envelope always has a status; a finished run's has no requiresApproval.
  if (!("status" in stdin) && !("requiresApproval" in stdin)) {
    const unknown = Object.keys(stdin).find((k) => !RESUME_KEYS.includes(k));
    if (unknown !== undefined)
      throw usageError(
        `Unknown field "${unknown}" in the request on stdin (it takes ${RESUME_KEYS.join(", ")}, or is a run envelope)`,
        { issues: [{ path: [unknown], message: "Unknown field" }] },
      );
    return stdin;
  }
  const gate = stdin.requiresApproval;
  if (!isObject(gate))
    throw usageError(
      `The envelope on stdin has no open gate (status ${JSON.stringify(stdin.status ?? null)}): nothing to resume`,
    );
  if (typeof gate.resumeToken !== "string")
    throw usageError(
      `The envelope's gate has no resume token: the token that ran it may not decide it${typeof gate.whyNot === "string" ? ` (${gate.whyNot})` : ""}; give --resume-token`,
    );
  return { executionId: stdin.executionId, resumeToken: gate.resumeToken };
}

/**
 * `--execution-id/--resume-token/--decision/--reason/--form`, or the same keys as JSON on stdin
 * (or an earlier run's envelope); flags win. The decision defaults to approve (RFC §6).
 */
export function buildResumeRequest(
  values: Record<string, string | boolean | undefined>,
  stdin: unknown,
) {
  const req = requestOf(stdin);
  const pick = (flag: string, key: string) => {
    const v = str(values, flag) ?? req[key];
    if (v !== undefined && typeof v !== "string") throw usageError(`${key} must be a string`);
    return v;
  };
  const executionId = pick("execution-id", "executionId");
  const resumeToken = pick("resume-token", "resumeToken");
  const decision = pick("decision", "decision") ?? "approve";
  const reason = pick("reason", "reason");
  const form = formOf(str(values, "form"), req.form);
  if (!executionId) throw usageError("Give --execution-id <run_…> (the envelope's executionId)");
  if (!resumeToken)
    throw usageError(
      "Give --resume-token <wrf_rt_…> (the envelope's requiresApproval.resumeToken)",
    );
  if (decision !== "approve" && decision !== "deny")
    throw usageError(`--decision must be approve or deny, got ${JSON.stringify(decision)}`);
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
  help: `Usage: sluice resume --execution-id <run_…> --resume-token <wrf_rt_…> [--decision approve|deny]
                    [--reason <text>] [--form <json>] [--no-wait]
       sluice run … | sluice resume [--decision approve|deny --reason <text>]

Decides the gate the resume token names (POST /api/v1/runs/{id}/approve), then follows
the run like \`sluice run\` until it finishes or stops at the next gate: the envelope on
stdout (with "decision"), the run's new events as NDJSON on stderr. Denying needs a
--reason: without one the command exits 10 and sends nothing. A gate with a form
(requiresApproval.form) takes its values as --form, a JSON object; they are ignored when
denying. --decision defaults to approve. The same keys are accepted as JSON on stdin
({ "executionId", "resumeToken", "decision", "reason", "form" }; other keys are refused),
and so is the envelope of an earlier \`sluice run\`: its executionId and
requiresApproval.resumeToken name the gate (flags still win).

Exit codes: as \`sluice run\`; 10 also for --decision deny without --reason; 20 when the
token does not match the gate (or the gate was already decided or expired); 30 when you
may not decide it (e.g. your own run).

Examples:
  sluice resume --execution-id run_01… --resume-token wrf_rt_… --decision approve
  sluice run --workflow deploy --input '{"release":"1.2"}' | sluice resume
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
