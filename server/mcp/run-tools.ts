import "server-only";
import { z } from "zod";
import { StartInlineRunInput, StartRunInput } from "@/lib/schemas/runs";
import { PreconditionFailedError, ValidationError } from "../errors";
import { decideApproval } from "../services/approvals/decide-approval";
import { parseResumeToken } from "../services/approvals/resume-token";
import type { ServiceContext } from "../services/context";
import { cancelRun } from "../services/runs/cancel-run";
import { getRun } from "../services/runs/get-run";
import { startInlineRun } from "../services/runs/start-inline-run";
import { startRun } from "../services/runs/start-run";
import { DEFAULT_RUN_WAIT_MS, waitForRun } from "../services/runs/wait-for-run";
import { findWorkflow } from "../services/workflows/find-workflow";
import { READ, runId, waitMs, workflowRef, type ToolKit } from "./tool-kit";

/** Runs: start one and wait for it, read it, decide its approval gate, cancel it. */
export function registerRunTools({ tool, ctx, waitSignal }: ToolKit): void {
  tool(
    "run_workflow",
    {
      title: "Run a workflow",
      description:
        'Starts a run of the published version — or, with `definition` instead of `workflow`, of an unsaved definition (an inline run: validated with the workspace policy, refused with every issue and its path; approval and task steps work as in a saved workflow, propose_change steps need one) — and waits up to `waitMs` for it to finish or stop at an approval gate. Answers the envelope { ok, status: "ok" | "needs_approval" | "cancelled" | "failed" | "running", executionId, output, steps, requiresApproval?: { approvalId, stepId, prompt, items, resumeToken }, error? }. "running" means the wait ran out: follow up with get_run. Repeating an `idempotencyKey` answers the same run.',
      minRole: "editor",
      annotations: { readOnlyHint: false, destructiveHint: false, openWorldHint: true },
      input: {
        workflow: workflowRef
          .optional()
          .describe("The workflow's id (wf_…) or its slug; or give `definition` instead"),
        definition: StartInlineRunInput.shape.definition
          .optional()
          .describe("An unsaved workflow definition to run inline, instead of `workflow`"),
        input: StartRunInput.shape.input.describe("The run's input, by the workflow's inputs"),
        waitMs: waitMs(DEFAULT_RUN_WAIT_MS),
        idempotencyKey: StartRunInput.shape.idempotencyKey.describe(
          "A client request id: repeating it returns the same run instead of a second one",
        ),
        versionId: StartRunInput.shape.versionId.describe(
          "Run this version instead of the published one",
        ),
        limits: StartRunInput.shape.limits,
        repository: StartRunInput.shape.repository.describe(
          "Run the workflow's repository at another ref ({ ref }, or { url, ref }); pinned to a commit before step 1",
        ),
      },
    },
    async (
      { workflow, definition, input, waitMs, idempotencyKey, versionId, limits, repository },
      extra,
    ) => {
      const started = await startWorkflowOrInline(ctx, {
        workflow,
        definition,
        input,
        idempotencyKey,
        versionId,
        limits,
        repository,
      });
      const envelope = await waitForRun({
        ctx,
        input: { runId: started.runId, waitMs },
        signal: waitSignal(extra),
      });
      return { ...envelope, deduplicated: started.deduplicated };
    },
  );

  tool(
    "get_run",
    {
      title: "Get a run",
      description:
        "A run's envelope (same shape as run_workflow's): status, output, the latest attempt of every step, the open approval gate if any, error. With `waitMs` > 0 it first waits for the run to finish or reach a gate.",
      minRole: "viewer",
      annotations: READ,
      input: { runId, waitMs: waitMs(0) },
    },
    (args, extra) => waitForRun({ ctx, input: args, signal: waitSignal(extra) }),
  );

  tool(
    "approve_run",
    {
      title: "Approve or reject a run's gate",
      description:
        "Decides the run's open approval gate (or the one `approvalId` / `resumeToken` names when several are open), then waits up to `waitMs` and answers the run's envelope with the decision. The run's initiator may not decide their own run unless the gate allows it; gates may list who decides.",
      minRole: "approver",
      annotations: { readOnlyHint: false, destructiveHint: false, idempotentHint: false },
      input: {
        runId,
        decision: z.enum(["approve", "reject"]),
        comment: z
          .string()
          .trim()
          .max(2_000)
          .default("")
          .describe("The reason, kept in the audit; required to reject"),
        approvalId: z.string().min(1).max(64).optional(),
        resumeToken: z
          .string()
          .max(500)
          .optional()
          .describe("requiresApproval.resumeToken from run_workflow/get_run; checked when given"),
        form: z
          .record(z.string(), z.unknown())
          .optional()
          .describe(
            "The gate's form values when it declares a form (field name → value); required fields must be given to approve, ignored when rejecting",
          ),
        waitMs: waitMs(DEFAULT_RUN_WAIT_MS),
      },
    },
    async (args, extra) => {
      const approvalId = await gateToDecide(ctx, args);
      const decision = await decideApproval({
        ctx,
        input: {
          approvalId,
          runId: args.runId,
          approve: args.decision === "approve",
          reason: args.comment,
          resumeToken: args.resumeToken,
          ...(args.form ? { form: args.form } : {}),
        },
        via: "mcp",
      });
      const envelope = await waitForRun({
        ctx,
        input: { runId: args.runId, waitMs: args.waitMs },
        signal: waitSignal(extra),
      });
      return { ...envelope, decision };
    },
  );

  tool(
    "cancel_run",
    {
      title: "Cancel a run",
      description:
        "Cancels a run: a queued run ends at once; a running or waiting one is asked to stop (status cancel_requested, then cancelled).",
      minRole: "editor",
      annotations: { readOnlyHint: false, destructiveHint: true, idempotentHint: true },
      input: { runId, reason: z.string().max(500).optional() },
    },
    (args) => cancelRun({ ctx, input: args }),
  );
}

/**
 * run_workflow's start: a published workflow (`workflow`) or an inline run (`definition`) —
 * exactly one of them; a version or repository override only means something for a workflow.
 */
async function startWorkflowOrInline(
  ctx: ServiceContext,
  args: {
    workflow?: string;
    definition?: Record<string, unknown>;
    input: Record<string, unknown>;
    idempotencyKey?: string;
    versionId?: string;
    limits?: StartRunInput["limits"];
    repository?: StartRunInput["repository"];
  },
) {
  const { workflow, definition, input, idempotencyKey, versionId, limits, repository } = args;
  if ((workflow === undefined) === (definition === undefined))
    throw new ValidationError("Give either `workflow` or `definition` (an inline run), not both", [
      { path: [workflow === undefined ? "workflow" : "definition"], message: "Give exactly one" },
    ]);
  if (definition !== undefined) {
    if (versionId || repository)
      throw new ValidationError("An inline run has no versions or repository override", [
        { path: [versionId ? "versionId" : "repository"], message: "Not for inline runs" },
      ]);
    return startInlineRun({ ctx, input: { definition, input, idempotencyKey, limits } });
  }
  const found = await findWorkflow({ ctx, input: { ref: workflow! } });
  return startRun({
    ctx,
    input: { workflowId: found.id, input, idempotencyKey, versionId, limits, repository },
  });
}

/**
 * Which gate approve_run decides: the one the resume token or approvalId names, else the run's
 * only open gate. Several open gates (parallel branches) need the caller to say which.
 */
async function gateToDecide(
  ctx: ServiceContext,
  args: { runId: string; approvalId?: string; resumeToken?: string },
): Promise<string> {
  if (args.resumeToken) {
    const parsed = parseResumeToken(args.resumeToken);
    if (!parsed)
      throw new ValidationError("resumeToken is malformed", [
        { path: ["resumeToken"], message: "Expected wrf_rt_… from requiresApproval.resumeToken" },
      ]);
    if (args.approvalId && args.approvalId !== parsed.approvalId)
      throw new ValidationError("approvalId and resumeToken name different gates", [
        { path: ["approvalId"], message: "Does not match the resume token" },
      ]);
    return parsed.approvalId;
  }
  if (args.approvalId) return args.approvalId;
  const run = await getRun({ ctx, input: { runId: args.runId } });
  const open = run.pendingApprovals;
  if (open.length === 0)
    throw new PreconditionFailedError(
      `Run ${run.id} has no open approval gate (it is ${run.status})`,
    );
  if (open.length > 1)
    throw new ValidationError(
      `Run ${run.id} has ${open.length} open gates; say which with approvalId (${open
        .map((a) => `${a.id} at step ${a.stepId}`)
        .join(", ")})`,
      [{ path: ["approvalId"], message: "Required when several gates are open" }],
    );
  return open[0]!.id;
}
