import "server-only";
import { StartRecordingInput } from "@/lib/schemas/recordings";
import { recordedDefinition } from "@/lib/workflow/recording";
import { fromZodError } from "../../errors";
import { requireRole, requireUserId, type ServiceContext } from "../context";
import { recordAudit } from "../audit/record-audit";
import { createRun } from "../runs/create-run";
import { createWorkflowFromDefinition } from "../workflows/create-workflow";

/**
 * Starts a recording (docs/mcp.md "Recording a workflow"): a workflow named by the agent, whose
 * first version declares the recording's inputs and a placeholder step, and a run of it with trigger
 * `recording` that the agent drives step by step (record_step) instead of the engine. Runs always
 * belong to a workflow version, so the recording gets one of its own; save_as_workflow later
 * turns the recorded steps into that workflow's draft for a person to review and publish.
 */
export async function startRecording({ ctx, input }: { ctx: ServiceContext; input: unknown }) {
  const ws = requireRole(ctx, "editor");
  const parsed = StartRecordingInput.safeParse(input);
  if (!parsed.success) throw fromZodError(parsed.error, "Recording");
  const { name, input: runInput } = parsed.data;
  const userId = requireUserId(ctx);
  return ctx.db.transaction(async (tx) => {
    // The workflow and its run commit together: a refused run (quota) leaves no empty workflow.
    const txCtx = { ...ctx, db: tx };
    const wf = await createWorkflowFromDefinition(txCtx, ws.id, {
      name,
      description: "Recorded through MCP",
      tags: [],
      definition: {
        ...recordedDefinition({ name, input: runInput, steps: [] }),
        // A definition needs a step: this placeholder version returns its input until a person
        // publishes the draft save_as_workflow writes.
        steps: [
          {
            id: "recording",
            type: "return",
            name: "Recorded through MCP: review and publish the draft",
            config: { value: "{{ input }}" },
          },
        ],
      },
      source: "create",
      notes: "Recording started",
    });
    const { run } = await createRun(tx, txCtx, {
      workspaceId: ws.id,
      workflowId: wf.id,
      input: runInput,
      trigger: { type: "recording", payload: { name, input: runInput } },
      initiator:
        ctx.actor.type === "token"
          ? { type: "token", id: ctx.actor.tokenId }
          : { type: "user", id: userId },
      accountableUserId: userId,
      recording: true,
    });
    await recordAudit(tx, ctx, {
      action: "run.started",
      targetType: "run",
      targetId: run.id,
      data: { workflowId: wf.id, version: run.version, recording: true },
    });
    return {
      recordingId: run.id,
      runId: run.id,
      workflowId: wf.id,
      status: run.status,
      url: `${ctx.config.publicUrl}/runs/${run.id}`,
    };
  });
}
