import { describe, expect, it, vi } from "vitest";
import { intFlag, parseCommandArgs } from "./args";
import { CliError } from "./errors";
import { EXIT } from "./exit-codes";
import { SseParser } from "./http";
import { ndjsonLine } from "./io";
import { buildRunRequest } from "./run-request";
import { buildResumeRequest, resumeCommand } from "./commands/resume";
import { main } from "./main";

const HASH = `sha256:${"a".repeat(64)}`;

function refusal(fn: () => unknown): CliError {
  try {
    fn();
  } catch (e) {
    if (e instanceof CliError) return e;
    throw e;
  }
  throw new Error("expected a refusal");
}

describe("parseCommandArgs", () => {
  const options = { workflow: { type: "string" }, wait: { type: "boolean" } } as const;

  it("parses flags, --no-x negations and --help", () => {
    expect(parseCommandArgs(["--workflow", "a", "--no-wait"], options).values).toMatchObject({
      workflow: "a",
      wait: false,
    });
    expect(parseCommandArgs(["-h"], options).values.help).toBe(true);
  });

  it("refuses unknown flags, missing values and stray arguments with exit 10", () => {
    for (const argv of [["--nope"], ["--workflow"], ["extra"]]) {
      const e = refusal(() => parseCommandArgs(argv, options));
      expect([argv, e.exit, e.code]).toEqual([argv, EXIT.validation, "usage"]);
    }
    expect(parseCommandArgs(["dir"], options, 1).positionals).toEqual(["dir"]);
  });

  it("intFlag names the flag and its range", () => {
    expect(intFlag("limit", "20", { min: 1, max: 200 })).toBe(20);
    expect(intFlag("limit", undefined, { min: 1, max: 200 })).toBeUndefined();
    expect(refusal(() => intFlag("limit", "2.5", { min: 1, max: 200 })).message).toMatch(
      /--limit must be a whole number from 1 to 200/,
    );
  });
});

describe("buildRunRequest", () => {
  it("reads the RFC §6.5 request from stdin; flags win", () => {
    const stdin = {
      workflow: "deploy",
      variables: { release: "1.2" },
      runtime: { idempotencyKey: "k1" },
      workflowHash: HASH,
    };
    expect(buildRunRequest({}, stdin)).toEqual({
      workflow: "deploy",
      input: { release: "1.2" },
      idempotencyKey: "k1",
      workflowHash: HASH,
      wait: true,
    });
    expect(
      buildRunRequest({ workflow: "other", input: '{"a":1}', wait: false }, stdin),
    ).toMatchObject({ workflow: "other", input: { a: 1 }, wait: false });
    expect(buildRunRequest({ workflow: "a", ref: "v2" }, null).repository).toEqual({ ref: "v2" });
    expect(
      buildRunRequest({ workflow: "a", ref: "v2", "repository-url": "/srv/a.git" }, null)
        .repository,
    ).toEqual({ url: "/srv/a.git", ref: "v2" });
  });

  it("takes an inline definition as `workflow` on stdin or --definition; refuses published-only flags", () => {
    const definition = { schemaVersion: 1, name: "Inline", steps: [] };
    expect(
      buildRunRequest({}, { workflow: definition, variables: { a: 1 }, runtime: { maxSteps: 3 } }),
    ).toEqual({ definition, input: { a: 1 }, limits: { maxSteps: 3 }, wait: true });
    expect(
      buildRunRequest({ definition: JSON.stringify(definition), "idempotency-key": "k" }, null),
    ).toEqual({ definition, input: {}, idempotencyKey: "k", wait: true });
    const both = refusal(() =>
      buildRunRequest({ workflow: "a", definition: JSON.stringify(definition) }, null),
    );
    expect([both.exit, both.message]).toEqual([
      EXIT.validation,
      "Give --workflow or --definition, not both",
    ]);
    const pinned = refusal(() =>
      buildRunRequest({ definition: JSON.stringify(definition), ref: "main" }, null),
    );
    expect(pinned.message).toMatch(/--ref applies to published workflows/);
    expect(refusal(() => buildRunRequest({}, { workflow: [1] })).message).toMatch(
      /workflow must be an id, a slug or a definition object/,
    );
  });

  it("passes per-run limits through (flags win over runtime), range-checked locally", () => {
    expect(
      buildRunRequest(
        { workflow: "a", "max-parallel": "2" },
        { runtime: { timeoutMs: 5000, maxParallel: 4 } },
      ).limits,
    ).toEqual({ timeoutMs: 5000, maxParallel: 2 });
    expect(buildRunRequest({ workflow: "a" }, null).limits).toBeUndefined();
    const bad = refusal(() => buildRunRequest({ workflow: "a", "max-steps": "0" }, null));
    expect([bad.exit, bad.message]).toEqual([
      EXIT.validation,
      expect.stringMatching(/--max-steps must be a whole number from 1 to 1000/),
    ]);
  });

  it("takes RFC §6.5's whole request: trigger, runtime.attempt and runtime.policy (flags win)", () => {
    const stdin = {
      workflow: "deploy",
      variables: { release: "1.2" },
      trigger: { source: "nightly-cron", tick: "2024-06-01T00:00:00Z" },
      runtime: {
        idempotencyKey: "deploy-1.2",
        attempt: 2,
        policy: { timeoutMs: 60_000, maxSteps: 5, maxParallel: 2, maxOutputBytes: 4096 },
      },
    };
    expect(buildRunRequest({}, stdin)).toEqual({
      workflow: "deploy",
      input: { release: "1.2" },
      idempotencyKey: "deploy-1.2",
      limits: { timeoutMs: 60_000, maxSteps: 5, maxParallel: 2 },
      trigger: { source: "nightly-cron", tick: "2024-06-01T00:00:00Z", attempt: 2 },
      maxOutputBytes: 4096,
      wait: true,
    });
    expect(buildRunRequest({ "max-steps": "3", "max-output-bytes": "10" }, stdin)).toMatchObject({
      limits: { maxSteps: 3 },
      maxOutputBytes: 10,
    });
    // runtime.attempt alone is trigger metadata too; the shorthand runtime.maxSteps still works.
    expect(
      buildRunRequest({}, { workflow: "a", runtime: { attempt: 1, maxSteps: 4 } }),
    ).toMatchObject({ trigger: { attempt: 1 }, limits: { maxSteps: 4 } });
  });

  it("refuses bad requests with the culprit named", () => {
    const cases: [Record<string, string>, unknown, RegExp][] = [
      [{}, null, /Name the workflow/],
      [{}, [1], /must be a JSON object/],
      [{}, { workflow: "a", vars: {} }, /Unknown field "vars" in the request on stdin/],
      [{}, { workflow: "a", runtime: { retries: 1 } }, /Unknown field "runtime\.retries"/],
      [
        {},
        { workflow: "a", runtime: { policy: { maxRetries: 1 } } },
        /Unknown field "runtime\.policy\.maxRetries" .*runtime\.policy takes timeoutMs, maxSteps, maxParallel, maxOutputBytes/,
      ],
      [{}, { workflow: "a", runtime: { policy: 5 } }, /runtime\.policy must be a JSON object/],
      [{}, { workflow: "a", trigger: "cron" }, /trigger must be a JSON object/],
      [
        {},
        { workflow: "a", runtime: { maxSteps: 2, policy: { maxSteps: 3 } } },
        /Give runtime\.policy\.maxSteps or runtime\.maxSteps, not both/,
      ],
      [
        {},
        { workflow: "a", runtime: { policy: { maxSteps: "3" } } },
        /runtime\.policy\.maxSteps must be a whole number from 1 to 1000, got "3"/,
      ],
      [
        {},
        { workflow: "a", runtime: { policy: { maxOutputBytes: 0 } } },
        /runtime\.policy\.maxOutputBytes must be a whole number from 1/,
      ],
      [{}, { workflow: "a", runtime: { attempt: 0 } }, /runtime\.attempt must be a whole number/],
      [
        {},
        { workflow: "a", trigger: { attempt: 1 }, runtime: { attempt: 2 } },
        /runtime\.attempt \(2\) and trigger\.attempt \(1\) disagree/,
      ],
      [{}, { workflow: "a", variables: {}, input: {} }, /"variables" or "input", not both/],
      [{ workflow: "a", "max-output-bytes": "-1" }, null, /--max-output-bytes must be a whole/],
      [{ workflow: "a", input: "[1]" }, null, /must be a JSON object/],
      [{ workflow: "a", input: "{" }, null, /--input is not valid JSON/],
      [{ workflow: "a", "workflow-hash": "abc" }, null, /--workflow-hash must look like sha256/],
      [{ workflow: "a", ref: "--upload-pack=x" }, null, /--ref: .*must not start with "-"/],
      [{ workflow: "a", "repository-url": "/srv/a.git" }, null, /--repository-url needs --ref/],
      [
        { workflow: "a", ref: "main", "repository-url": "ext::sh -c x" },
        null,
        /--repository-url: Git transport helpers/,
      ],
    ];
    for (const [values, stdin, message] of cases) {
      const e = refusal(() => buildRunRequest(values, stdin));
      expect(e.exit).toBe(EXIT.validation);
      expect(e.message).toMatch(message);
    }
  });
});

describe("buildResumeRequest", () => {
  it("takes flags or stdin keys; approve|deny only", () => {
    expect(
      buildResumeRequest(
        { "execution-id": "run_1", "resume-token": "wrf_rt_x", decision: "deny", reason: "no" },
        null,
      ),
    ).toEqual({
      executionId: "run_1",
      resumeToken: "wrf_rt_x",
      approve: false,
      reason: "no",
      wait: true,
    });
    expect(
      buildResumeRequest({}, { executionId: "run_1", resumeToken: "t", decision: "approve" }),
    ).toMatchObject({ approve: true });
    expect(
      refusal(() =>
        buildResumeRequest({ "execution-id": "r", "resume-token": "t", decision: "yes" }, null),
      ).message,
    ).toMatch(/--decision must be approve or deny/);
    expect(refusal(() => buildResumeRequest({ decision: "approve" }, null)).message).toMatch(
      /--execution-id/,
    );
  });

  it("the decision defaults to approve (RFC §6); other stdin keys are refused", () => {
    expect(
      buildResumeRequest({ "execution-id": "run_1", "resume-token": "wrf_rt_x" }, null),
    ).toEqual({ executionId: "run_1", resumeToken: "wrf_rt_x", approve: true, wait: true });
    expect(buildResumeRequest({}, { executionId: "run_1", resumeToken: "t" })).toMatchObject({
      approve: true,
    });
    const unknown = refusal(() =>
      buildResumeRequest({}, { executionId: "run_1", resumeToken: "t", decison: "deny" }),
    );
    expect([unknown.exit, unknown.message]).toEqual([
      EXIT.validation,
      expect.stringMatching(/^Unknown field "decison" in the request on stdin/),
    ]);
  });

  it("takes an earlier run's envelope on stdin: its executionId and gate's resume token", () => {
    const envelope = {
      ok: true,
      status: "needs_approval",
      executionId: "run_1",
      output: null,
      steps: [],
      requiresApproval: { approvalId: "apr_1", stepId: "ask", resumeToken: "wrf_rt_x" },
      deduplicated: false,
    };
    expect(buildResumeRequest({}, envelope)).toEqual({
      executionId: "run_1",
      resumeToken: "wrf_rt_x",
      approve: true,
      wait: true,
    });
    expect(buildResumeRequest({ decision: "deny", reason: "no" }, envelope)).toMatchObject({
      executionId: "run_1",
      approve: false,
      reason: "no",
    });
    const finished = refusal(() =>
      buildResumeRequest({}, { ok: true, status: "ok", executionId: "run_1", steps: [] }),
    );
    expect(finished.message).toBe(
      'The envelope on stdin has no open gate (status "ok"): nothing to resume',
    );
    const noToken = refusal(() =>
      buildResumeRequest(
        {},
        {
          ...envelope,
          requiresApproval: { resumeToken: null, whyNot: "Deciding gates needs approver" },
        },
      ),
    );
    expect(noToken.message).toMatch(/no resume token.*\(Deciding gates needs approver\)/);
  });

  it("denying needs a reason (flag or stdin), as --help and docs/cli.md say: else exit 10", () => {
    const ids = { "execution-id": "run_1", "resume-token": "wrf_rt_x", decision: "deny" };
    for (const reason of [undefined, "", "  "]) {
      const e = refusal(() =>
        buildResumeRequest(reason === undefined ? ids : { ...ids, reason }, null),
      );
      expect(e.exit).toBe(EXIT.validation);
      expect(e.code).toBe("usage");
      expect(e.message).toBe('Denying needs a reason: add --reason "<why>" (or "reason" on stdin)');
    }
    const viaStdin = { executionId: "run_1", resumeToken: "t", decision: "deny" };
    expect(refusal(() => buildResumeRequest({}, viaStdin)).exit).toBe(EXIT.validation);
    expect(buildResumeRequest({}, { ...viaStdin, reason: "freeze" })).toMatchObject({
      approve: false,
      reason: "freeze",
    });
    // Approving needs none.
    expect(buildResumeRequest({ ...ids, decision: "approve" }, null)).toMatchObject({
      approve: true,
    });
    expect(resumeCommand.help).toMatch(/Denying needs a\s+--reason/);
  });

  it("sluice resume --decision deny without --reason: exit 10 and the usage envelope, no request", async () => {
    const out: string[] = [];
    const write = vi.spyOn(process.stdout, "write").mockImplementation((chunk) => {
      out.push(String(chunk));
      return true;
    });
    const fetchSpy = vi.spyOn(globalThis, "fetch");
    try {
      const code = await main([
        "resume",
        "--execution-id",
        "run_1",
        "--resume-token",
        "wrf_rt_x",
        "--decision",
        "deny",
      ]);
      expect(code).toBe(10);
      expect(fetchSpy).not.toHaveBeenCalled();
    } finally {
      write.mockRestore();
      fetchSpy.mockRestore();
    }
    expect(JSON.parse(out.join(""))).toMatchObject({
      status: "failed",
      executionId: "run_1",
      error: { code: "usage", message: expect.stringContaining("Denying needs a reason") },
    });
  });

  it("takes a gate's form values as --form JSON or a stdin `form` object", () => {
    const flags = { "execution-id": "run_1", "resume-token": "t", decision: "approve" };
    expect(buildResumeRequest({ ...flags, form: '{"ticket":"OPS-1"}' }, null)).toMatchObject({
      form: { ticket: "OPS-1" },
    });
    expect(
      buildResumeRequest(
        {},
        { executionId: "r", resumeToken: "t", decision: "approve", form: { n: 2 } },
      ),
    ).toMatchObject({ form: { n: 2 } });
    expect(refusal(() => buildResumeRequest({ ...flags, form: "{oops" }, null)).message).toMatch(
      /--form must be a JSON object/,
    );
    expect(refusal(() => buildResumeRequest({ ...flags, form: "[1]" }, null)).message).toMatch(
      /--form must be a JSON object/,
    );
  });
});

describe("SseParser and NDJSON", () => {
  it("splits messages across chunks, skips comments, keeps ids", () => {
    const p = new SseParser();
    expect(p.push("retry: 1000\n: connected\n\nid: 7\nevent: step.comp")).toEqual([]);
    expect(p.push('leted\ndata: {"id":7}\n\n: heartbeat\n\nevent: end\ndata: {}\n\n')).toEqual([
      { id: "7", event: "step.completed", data: '{"id":7}' },
      { id: "7", event: "end", data: "{}" },
    ]);
  });

  it("an NDJSON line is one parseable JSON object ending in a newline", () => {
    const line = ndjsonLine({ type: "step.completed", data: { text: "a\nb" } });
    expect(line.endsWith("\n")).toBe(true);
    expect(line.slice(0, -1)).not.toContain("\n");
    expect(JSON.parse(line)).toEqual({ type: "step.completed", data: { text: "a\nb" } });
  });
});
