import { str, type ParsedArgs } from "../args";
import { connect, type Command } from "../command";
import { CliError, usageError, type CliError as CliErrorType } from "../errors";
import { EXIT, exitForEnvelope } from "../exit-codes";
import { fetchEnvelope, waitForOutcome, type RunEvent } from "../follow";
import { printEnvelope, progress, readStdin } from "../io";
import { boundOutputs } from "../output-limit";
import { buildRunRequest, type RunRequest } from "../run-request";

/** The envelope of a run that did not start or could not be followed: the same keys, nulls. */
export function failedRunEnvelope(error: CliErrorType, executionId: string | null = null) {
  return {
    ok: false,
    status: "failed" as const,
    executionId,
    output: null,
    steps: [],
    error: error.toJSON(),
  };
}

/** Forwards a run event to stderr as one NDJSON line (`type` first). */
export function progressEvent(e: RunEvent): void {
  const { type, ...rest } = e;
  progress({ type, ...rest });
}

/** Reads the request JSON from stdin when no --workflow or --definition flag names the workflow. */
async function stdinRequest(values: ParsedArgs["values"]): Promise<unknown> {
  if (str(values, "workflow") !== undefined || str(values, "definition") !== undefined) return null;
  const text = (await readStdin()).trim();
  if (!text) return null;
  try {
    return JSON.parse(text) as unknown;
  } catch (e) {
    throw usageError(`The request on stdin is not valid JSON: ${(e as Error).message}`);
  }
}

export const runCommand: Command = {
  name: "run",
  summary: "Run a workflow and wait for its outcome (envelope on stdout, events on stderr)",
  help: `Usage: sluice run (--workflow <id|slug> | --definition <json|@file>) [--input <json|@file>] [--idempotency-key <key>]
                 [--workflow-hash sha256:…] [--timeout-ms <ms>] [--max-steps <n>]
                 [--max-parallel <n>] [--max-output-bytes <n>]
                 [--ref <branch|tag|sha> [--repository-url <url>]] [--no-wait]
       echo '{ "workflow": "<slug>", "variables": {…}, "trigger": {…},
               "runtime": { "idempotencyKey": "…", "attempt": 1,
                            "policy": { "timeoutMs": …, "maxSteps": …, "maxParallel": …,
                                        "maxOutputBytes": … } } }' | sluice run

Starts a run of the workflow's published version and follows it until it finishes or
stops at an approval gate. stdout: the envelope
  { ok, status: ok|needs_approval|cancelled|failed, executionId, output, steps,
    requiresApproval: { stepId, prompt, items, resumeToken, … }, error, … }
stderr: the run's events as NDJSON, one { "type": …, … } object per line.
Flags override the stdin request. --no-wait prints the envelope right after the start
(status "running"). --workflow-hash refuses to run (exit 20) unless the published
version has exactly that hash, and then runs exactly that version. --ref runs the
workflow's repository at another branch, tag or commit (--repository-url: another
repository too); the server pins it to a commit before step 1.

Per-run limits --timeout-ms / --max-steps / --max-parallel (runtime.policy.timeoutMs /
maxSteps / maxParallel; runtime.timeoutMs … also works) may only tighten the workflow's
constraints: a larger value is refused (exit 10, naming the limit and its maximum).
--max-output-bytes (runtime.policy.maxOutputBytes) bounds the envelope's outputs (the run's
output, then each step's) to that many bytes of JSON: what does not fit is printed as null
and listed in "truncated": { maxOutputBytes, outputBytes, omitted }; status and exit code
are unchanged. trigger (an object) is kept on the run as its trigger payload
({{ trigger.<key> }}), runtime.attempt with it as trigger.attempt. Unknown request
fields are refused (exit 10), naming the field.

Inline runs: --definition @file.json (or a definition object as "workflow" on stdin)
runs an unsaved definition, validated like a publish (exit 10 with every issue and its
path). --workflow-hash and --ref apply to published workflows only.

Exit codes: 0 ok, needs_approval, cancelled (and running with --no-wait);
10 bad request, unknown workflow, or a run that failed on a user error;
20 hash mismatch or token refused; 30 role or policy refused; 40 server error or a run
that failed on an operational/internal error.

Examples:
  sluice run --workflow nightly-report --input '{"day":"2024-06-01"}'
  echo '{"workflow":"deploy","variables":{"release":"1.2"},"runtime":{"idempotencyKey":"deploy-1.2"}}' | sluice run`,
  options: {
    workflow: { type: "string" },
    definition: { type: "string" },
    input: { type: "string" },
    "idempotency-key": { type: "string" },
    "workflow-hash": { type: "string" },
    ref: { type: "string" },
    "repository-url": { type: "string" },
    "timeout-ms": { type: "string" },
    "max-steps": { type: "string" },
    "max-parallel": { type: "string" },
    "max-output-bytes": { type: "string" },
    wait: { type: "boolean" },
  },
  errorEnvelope: (error) => failedRunEnvelope(error),
  async run({ values }) {
    const request = buildRunRequest(values, await stdinRequest(values));
    const api = connect();
    const headers: Record<string, string> = request.idempotencyKey
      ? { "idempotency-key": request.idempotencyKey }
      : {};
    if (request.definition) {
      const started = await api.request<{ runId: string; deduplicated: boolean }>("POST", "/runs", {
        body: {
          definition: request.definition,
          input: request.input,
          ...(request.limits ? { limits: request.limits } : {}),
          ...(request.trigger ? { trigger: request.trigger } : {}),
        },
        headers,
      });
      return follow(api, request, started.body, null);
    }
    const wf = await api.get<{
      id: string;
      slug: string;
      currentVersion: { id: string; version: string; hash: string } | null;
    }>(`/workflows/${encodeURIComponent(request.workflow)}`);
    if (request.workflowHash && wf.currentVersion?.hash !== request.workflowHash)
      throw new CliError(
        EXIT.contract,
        "hash_mismatch",
        `The published version of "${wf.slug}" has hash ${wf.currentVersion?.hash ?? "(none: not published)"}, not the expected ${request.workflowHash}`,
        { expected: request.workflowHash, actual: wf.currentVersion?.hash ?? null },
      );
    const started = await api.request<{ runId: string; status: string; deduplicated: boolean }>(
      "POST",
      `/workflows/${encodeURIComponent(wf.id)}/runs`,
      {
        body: {
          input: request.input,
          // A pinned hash runs exactly the version checked above, even if one is published meanwhile.
          ...(request.workflowHash ? { versionId: wf.currentVersion!.id } : {}),
          ...(request.limits ? { limits: request.limits } : {}),
          ...(request.repository ? { repository: request.repository } : {}),
          ...(request.trigger ? { trigger: request.trigger } : {}),
        },
        headers,
      },
    );
    return follow(api, request, started.body, wf.id);
  },
};

/** After the start: follow the run to its outcome (or not, with --no-wait) and print it. */
async function follow(
  api: ReturnType<typeof connect>,
  request: RunRequest,
  started: { runId: string; deduplicated: boolean },
  workflowId: string | null,
): Promise<number> {
  const { runId, deduplicated } = started;
  progress({ type: "cli.run_created", runId, workflowId, deduplicated });
  try {
    const envelope = request.wait
      ? (await waitForOutcome(api, runId, { onEvent: progressEvent })).envelope
      : await fetchEnvelope(api, runId);
    printEnvelope({ ...boundOutputs(envelope, request.maxOutputBytes), deduplicated });
    return exitForEnvelope(envelope);
  } catch (e) {
    // The run exists: say which one, so the caller can follow it with `sluice logs`.
    if (e instanceof CliError) {
      printEnvelope(failedRunEnvelope(e, runId));
      return e.exit;
    }
    throw e;
  }
}
