import { describe, expect, it } from "vitest";
import { RUN_STATUSES } from "../workflow/status";
import { buildRunEnvelope, envelopeStatus, type EnvelopeAttemptSource } from "./envelope";

const run = {
  id: "run_1",
  status: "waiting" as const,
  workflowId: "wf_1",
  workflowSlug: "deploy",
  version: "1.0.0",
  input: { release: "1.2" },
  output: undefined,
  error: null,
  createdAt: "2024-06-01T00:00:00.000Z",
  finishedAt: null,
  pendingApprovals: [
    {
      id: "apr_1",
      stepId: "ask",
      prompt: "Ship 1.2?",
      items: ["release 1.2"],
      resumeToken: "wrf_rt_x",
      canDecide: true,
      whyNot: null,
      expiresAt: "2024-06-02T00:00:00.000Z",
    },
  ],
};

const attempt = (
  path: string,
  n: number,
  status: string,
  extra: Partial<EnvelopeAttemptSource<string>> = {},
): EnvelopeAttemptSource<string> => ({
  stepId: path,
  path,
  stepType: "transform",
  status,
  attempt: n,
  port: null,
  skipReason: null,
  startedAt: null,
  finishedAt: null,
  durationMs: null,
  ...extra,
});

describe("envelopeStatus", () => {
  it("maps every run status, with and without an open gate", () => {
    const table = Object.fromEntries(
      RUN_STATUSES.map((s) => [s, [envelopeStatus(s, false), envelopeStatus(s, true)]]),
    );
    expect(table).toEqual({
      queued: ["running", "needs_approval"],
      running: ["running", "needs_approval"],
      waiting: ["running", "needs_approval"],
      cancel_requested: ["running", "running"],
      completed: ["ok", "ok"],
      failed: ["failed", "failed"],
      cancelled: ["cancelled", "cancelled"],
      timed_out: ["failed", "failed"],
    });
  });
});

describe("buildRunEnvelope", () => {
  it("keeps the latest attempt per step, in first-run order, and the first open gate", () => {
    const env = buildRunEnvelope(run, [
      attempt("fetch", 1, "failed", { error: { message: "503" }, failureClass: "operational" }),
      attempt("ask", 1, "waiting", { stepType: "approval" }),
      attempt("fetch", 2, "completed", { output: { data: 1 } }),
    ]);
    expect(env).toMatchObject({
      ok: true,
      status: "needs_approval",
      executionId: "run_1",
      runStatus: "waiting",
      output: null,
      pendingApprovals: 1,
      requiresApproval: { stepId: "ask", prompt: "Ship 1.2?", resumeToken: "wrf_rt_x" },
    });
    expect(env.steps.map((s) => [s.path, s.attempt, s.status, s.error, s.failureClass])).toEqual([
      ["fetch", 2, "completed", null, null],
      ["ask", 1, "waiting", null, null],
    ]);
    expect(env).not.toHaveProperty("error");
  });

  it("a failed run is ok: false with its error and no gate", () => {
    const env = buildRunEnvelope(
      {
        ...run,
        status: "failed",
        pendingApprovals: [],
        error: { code: "unhandled_failure", stepId: "fetch" },
      },
      [],
    );
    expect(env).toMatchObject({ ok: false, status: "failed", error: { stepId: "fetch" } });
    expect(env).not.toHaveProperty("requiresApproval");
  });
});
