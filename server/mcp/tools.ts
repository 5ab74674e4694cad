import "server-only";
import type { McpServer } from "@modelcontextprotocol/sdk/server/mcp.js";
import type { CallToolResult, ToolAnnotations } from "@modelcontextprotocol/sdk/types.js";
import { z } from "zod";
import { ListProposalsInput, ProposalBaseHash, ProposalStatus } from "@/lib/schemas/proposals";
import {
  FinishRecordingInput,
  RecordStepInput,
  SaveRecordingInput,
  StartRecordingInput,
} from "@/lib/schemas/recordings";
import { hasRole, type Role } from "@/lib/schemas/roles";
import { StartInlineRunInput, StartRunInput } from "@/lib/schemas/runs";
import { CompleteTaskInput, FailTaskInput, ListTasksInput } from "@/lib/schemas/tasks";
import { ListWorkflowsInput } from "@/lib/schemas/workflows";
import { ForbiddenError, PreconditionFailedError, ValidationError } from "../errors";
import { refuseUnstorable } from "../http/api";
import { decideApproval } from "../services/approvals/decide-approval";
import { parseResumeToken } from "../services/approvals/resume-token";
import type { ServiceContext } from "../services/context";
import { createMcpProposal } from "../services/proposals/create-mcp-proposal";
import { listProposals } from "../services/proposals/list-proposals";
import { finishRecording } from "../services/recordings/finish-recording";
import { recordStep } from "../services/recordings/record-step";
import { saveRecordingAsWorkflow } from "../services/recordings/save-recording-as-workflow";
import { startRecording } from "../services/recordings/start-recording";
import { completeTask } from "../services/tasks/complete-task";
import { failTask } from "../services/tasks/fail-task";
import { listTasks } from "../services/tasks/list-tasks";
import { cancelRun } from "../services/runs/cancel-run";
import { getRun } from "../services/runs/get-run";
import { startInlineRun } from "../services/runs/start-inline-run";
import { startRun } from "../services/runs/start-run";
import { DEFAULT_RUN_WAIT_MS, MAX_RUN_WAIT_MS, waitForRun } from "../services/runs/wait-for-run";
import { findWorkflow } from "../services/workflows/find-workflow";
import { getVersion } from "../services/workflows/get-version";
import { getWorkflow } from "../services/workflows/get-workflow";
import { listWorkflows } from "../services/workflows/list-workflows";
import { validateWorkflowDefinition } from "../services/workflows/validate-workflow-definition";
import { toolError, toolResult } from "./results";

/**
 * The MCP tools. Each one is an adapter like a tRPC procedure: check the token's role (the same
 * minimum the equivalent tRPC procedure and /api/v1 route require), call service verbs, answer
 * JSON. A refusal — role, validation, not found, a proposal rule — is a tool result with
 * `isError: true` the model can read and act on; only authentication is an HTTP error (401).
 */

const workflowRef = z
  .string()
  .trim()
  .min(1)
  .max(120)
  .describe("The workflow's id (wf_…) or its slug");
const runId = z.string().min(1).max(64).describe("The run id (run_…), a.k.a. executionId");
const waitMs = (fallback: number) =>
  z
    .number()
    .int()
    .min(0)
    .max(MAX_RUN_WAIT_MS)
    .default(fallback)
    .describe(
      `How long to wait (ms, at most ${MAX_RUN_WAIT_MS}) for the run to finish or stop at an approval gate`,
    );

const READ: ToolAnnotations = { readOnlyHint: true, openWorldHint: false };

export interface ToolContext {
  ctx: ServiceContext;
  /** Aborted when the HTTP request goes away: ends waits early. */
  signal?: AbortSignal;
}

/** Registers every tool on `server`, bound to the authenticated caller's context. */
export function registerTools(server: McpServer, { ctx, signal }: ToolContext): void {
  const role = ctx.workspace!.role;

  function tool<S extends z.ZodRawShape>(
    name: string,
    def: {
      title: string;
      description: string;
      minRole: Role;
      annotations: ToolAnnotations;
      input: S;
    },
    run: (args: z.infer<z.ZodObject<S>>, extra: { signal: AbortSignal }) => Promise<object>,
  ): void {
    const cb = async (
      args: z.infer<z.ZodObject<S>>,
      extra: { signal: AbortSignal },
    ): Promise<CallToolResult> => {
      try {
        if (!hasRole(role, def.minRole))
          throw new ForbiddenError(
            `${name} needs a token with the ${def.minRole} role or higher; this token acts as ${role}`,
          );
        refuseUnstorable(args, "Arguments");
        return toolResult(await run(args, extra));
      } catch (e) {
        return toolError(e, ctx.log, name);
      }
    };
    server.registerTool(
      name,
      {
        title: def.title,
        description: `${def.description} Needs the ${def.minRole} role or higher.`,
        inputSchema: def.input,
        annotations: { title: def.title, ...def.annotations },
      },
      cb as never,
    );
  }

  const waitSignal = (extra: { signal: AbortSignal }) =>
    signal ? AbortSignal.any([signal, extra.signal]) : extra.signal;

  tool(
    "list_workflows",
    {
      title: "List workflows",
      description:
        "Workflows of the token's workspace, most recently updated first, with their published version. Page with `cursor` (the previous answer's nextCursor).",
      minRole: "viewer",
      annotations: READ,
      input: {
        search: ListWorkflowsInput.shape.search.describe("Matches name, slug or description"),
        tag: ListWorkflowsInput.shape.tag,
        status: ListWorkflowsInput.shape.status.describe(
          "published | draft_only | unpublished_changes | all",
        ),
        limit: z.number().int().min(1).max(200).default(50),
        cursor: ListWorkflowsInput.shape.cursor,
      },
    },
    (args) => listWorkflows({ ctx, input: args }),
  );

  tool(
    "get_workflow",
    {
      title: "Get a workflow",
      description:
        "One workflow: metadata, its draft with validation issues, and the published definition with its hash (the `baseHash` for propose_change).",
      minRole: "viewer",
      annotations: READ,
      input: { workflow: workflowRef },
    },
    async ({ workflow }) => {
      const found = await findWorkflow({ ctx, input: { ref: workflow } });
      const { layout: _layout, ...wf } = await getWorkflow({
        ctx,
        input: { workflowId: found.id },
      });
      const published = found.currentVersionId
        ? await getVersion({
            ctx,
            input: { workflowId: found.id, versionId: found.currentVersionId },
          })
        : null;
      return {
        ...wf,
        published: published
          ? {
              versionId: published.id,
              version: published.version,
              hash: published.hash,
              createdAt: published.createdAt,
              definition: published.definition,
            }
          : null,
      };
    },
  );

  tool(
    "validate_workflow",
    {
      title: "Validate a definition",
      description:
        "Checks a workflow definition (JSON) without saving it, under this workspace's policies: `ok`, the hash it would publish as, and every issue with its JSON path. An invalid definition is a normal answer (ok: false), not an error.",
      minRole: "viewer",
      annotations: READ,
      input: {
        definition: z
          .record(z.string(), z.unknown())
          .describe("The workflow definition (schemaVersion, name, steps, edges, …)"),
      },
    },
    (args) => validateWorkflowDefinition({ ctx, input: args }),
  );

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

  tool(
    "propose_change",
    {
      title: "Propose a change to a workflow",
      description:
        'Opens a change proposal for human review (nothing is published until a reviewer approves and applies it). Give exactly one of `definition` (the full new definition) or `patch` (RFC 6902 operations against the published definition), and `baseHash` (required) = get_workflow\'s published.hash so a change written against an older version is refused (stale_base); `"current"` instead takes whatever version is current, and the proposal records that you asked for it. The workflow must allow self-modification.',
      minRole: "editor",
      annotations: { readOnlyHint: false, destructiveHint: false, idempotentHint: false },
      input: {
        workflow: workflowRef,
        summary: z.string().trim().min(1).max(500).describe("One line: what changes"),
        rationale: z.string().max(20_000).optional().describe("Why; shown to the reviewer"),
        baseHash: ProposalBaseHash.describe(
          'The published hash the change was written against (get_workflow\'s published.hash), or "current"',
        ),
        definition: z.record(z.string(), z.unknown()).optional(),
        patch: z
          .array(
            z.looseObject({
              op: z.string().describe("add | remove | replace | move | copy | test"),
              path: z.string().describe("JSON Pointer, e.g. /steps/0/config/url"),
            }),
          )
          .optional(),
      },
    },
    async ({ workflow, ...rest }) => {
      const found = await findWorkflow({ ctx, input: { ref: workflow } });
      const r = await createMcpProposal({ ctx, input: { ...rest, workflowId: found.id } });
      return {
        id: r.id,
        status: r.status,
        risk: r.risk,
        workflowId: found.id,
        url: `${ctx.config.publicUrl}/workflows/${found.id}/proposals/${r.id}`,
      };
    },
  );

  tool(
    "list_proposals",
    {
      title: "List change proposals",
      description:
        "Change proposals of the workspace (or of one workflow), newest first, with status, risk and author. Page with `cursor`.",
      minRole: "viewer",
      annotations: READ,
      input: {
        workflow: workflowRef.optional(),
        status: z.array(ProposalStatus).max(10).optional().describe("Only these statuses"),
        limit: ListProposalsInput.shape.limit,
        cursor: ListProposalsInput.shape.cursor,
      },
    },
    async ({ workflow, ...rest }) => {
      const workflowId = workflow
        ? (await findWorkflow({ ctx, input: { ref: workflow } })).id
        : undefined;
      return listProposals({ ctx, input: { ...rest, workflowId } });
    },
  );

  // The molecule protocol's current/advance: "which work is mine now" and "I finished it".
  tool(
    "current_tasks",
    {
      title: "My open tasks",
      description:
        "Tasks waiting for this token — assigned to the token itself, its creator, or its role — soonest due first. Each has `instructions` (what to do), `outputSchema` (the fields complete_task expects: type, required, enum, description), `dueAt`, `expiresAt` and the run it belongs to. Page with `cursor`.",
      minRole: "viewer",
      annotations: READ,
      input: {
        limit: ListTasksInput.shape.limit,
        cursor: ListTasksInput.shape.cursor,
      },
    },
    (args) => listTasks({ ctx, input: { ...args, mine: true, status: ["pending"] } }),
  );

  tool(
    "complete_task",
    {
      title: "Complete a task",
      description:
        "Reports a task done with its `output` (an object matching the task's outputSchema; refused with the field named otherwise). The run resumes with the output as steps.<step>.output.data. A task completes once: a second completion is refused naming who finished it.",
      minRole: "viewer",
      annotations: { readOnlyHint: false, destructiveHint: false, idempotentHint: false },
      input: {
        taskId: CompleteTaskInput.shape.taskId.describe("The task id (task_…) from current_tasks"),
        output: CompleteTaskInput.shape.output.describe("The fields of the task's outputSchema"),
      },
    },
    (args) => completeTask({ ctx, input: args, via: "mcp" }),
  );

  tool(
    "fail_task",
    {
      title: "Fail a task",
      description:
        "Reports that a task cannot be done, with the reason: the step fails with it and the run follows the step's error edge, if any.",
      minRole: "viewer",
      annotations: { readOnlyHint: false, destructiveHint: false, idempotentHint: false },
      input: {
        taskId: FailTaskInput.shape.taskId.describe("The task id (task_…) from current_tasks"),
        reason: FailTaskInput.shape.reason.describe("Why the task cannot be done"),
      },
    },
    (args) => failTask({ ctx, input: args, via: "mcp" }),
  );

  // Recording mode: the agent calls step types one by one; the calls become a draft workflow.
  tool(
    "start_recording",
    {
      title: "Start recording a workflow",
      description:
        "Starts a recording: a new workflow named `name` (a draft for a person to review) and a run of it (trigger recording) that you drive with record_step. Each key of `input` becomes a workflow input ({{ input.<key> }}). Answers { recordingId, runId, workflowId }.",
      minRole: "editor",
      annotations: { readOnlyHint: false, destructiveHint: false, idempotentHint: false },
      input: StartRecordingInput.shape,
    },
    (args) => startRecording({ ctx, input: args }),
  );

  tool(
    "record_step",
    {
      title: "Call and record a step",
      description:
        'Calls one step of a recording and records it: `type` http | code | llm | notify | tool (a tool of an MCP server configured in the workspace: config { server, tool, arguments }), `config` as in a workflow definition. Reference earlier steps with `{{ steps.<id>.output.data.<path> }}` or the shorthand "@<id>.<path>" as a whole string value; they are resolved for this call and kept as references in the recording. With `preset` the step is recorded with that output data and not executed. Answers { ok, stepId, output: { type, data, meta } } or { ok: false, error }; a failed call is not kept and may be repeated with the same id.',
      minRole: "editor",
      annotations: { readOnlyHint: false, destructiveHint: false, openWorldHint: true },
      input: RecordStepInput.shape,
    },
    (args) => recordStep({ ctx, input: args }),
  );

  tool(
    "finish_recording",
    {
      title: "Finish a recording",
      description:
        "Completes the recording's run, with `output` (templates allowed, e.g. {{ steps.<id>.output.data }}) as its output and the workflow's.",
      minRole: "editor",
      annotations: { readOnlyHint: false, destructiveHint: false, idempotentHint: false },
      input: FinishRecordingInput.shape,
    },
    (args) => finishRecording({ ctx, input: args }),
  );

  tool(
    "save_as_workflow",
    {
      title: "Save a recording as a workflow draft",
      description:
        "Writes the recorded steps (in order, references intact) as the draft of the recording's workflow; nothing is published. Answers { workflowId, ok, issues, definition, suggestions, url }: suggestions are literal values equal to an earlier step's output, as { stepId, path, reference }, for a person to confirm in the editor.",
      minRole: "editor",
      annotations: { readOnlyHint: false, destructiveHint: false, idempotentHint: true },
      input: SaveRecordingInput.shape,
    },
    (args) => saveRecordingAsWorkflow({ ctx, input: args }),
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
