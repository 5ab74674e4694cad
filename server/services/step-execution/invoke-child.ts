import "server-only";
import { createHash } from "node:crypto";
import { childRunResult, createChildRun } from "@/server/services/runs/create-child-run";
import type { AttemptKey } from "@/server/services/run-state/step-records";
import { resolveWorkflowRef } from "@/server/services/run-state/resolve-workflow-ref";
import { StepFailure } from "@/server/services/step-execution/actions/types";
import { DomainError } from "@/server/errors";
import { isTerminalRunStatus } from "@/lib/workflow/status";
import { runtimeNow, runtimeServiceContext } from "./runtime";

const POLL_MS = 250;

/**
 * Runs another workflow of the workspace as a child of the current step and waits for its output
 * (agent tools). The child is a full run — recorded, visible, cancellable — admitted like any
 * child (createChildRun); one left queued is started by admission and polled here all the same.
 */
export async function invokeChildWorkflow(args: {
  parent: AttemptKey;
  rootRunId: string;
  ref: string;
  input: Record<string, unknown>;
  deadline: number;
  signal: AbortSignal;
}): Promise<unknown> {
  const ctx = await runtimeServiceContext(args.parent.workspaceId);
  const wf = await resolveWorkflowRef(ctx.db, args.parent.workspaceId, args.ref);
  let child: { id: string };
  try {
    ({ run: child } = await createChildRun(ctx, {
      parent: args.parent,
      rootRunId: args.rootRunId,
      workflowId: wf.id,
      input: args.input,
      // A retried attempt (or a repeated identical tool call) finds the same child run.
      idempotencyKey: `child:${args.parent.runId}:${args.parent.path}:${args.parent.attempt}:${createHash("sha256").update(JSON.stringify(args.input)).digest("hex").slice(0, 32)}`,
      start: true,
    }));
  } catch (e) {
    // Refusals (depth, quota, input) are the author's to fix, not bugs.
    if (e instanceof DomainError) throw new StepFailure(e.message, "user");
    throw e;
  }
  for (;;) {
    if (args.signal.aborted)
      throw new StepFailure(`Stopped while waiting for workflow "${wf.name}"`, "operational");
    if (runtimeNow().getTime() > args.deadline)
      throw new StepFailure(`Workflow "${wf.name}" did not finish in time`, "operational");
    const row = await childRunResult(ctx.db, child.id);
    if (row?.status === "completed") return row.output ?? null;
    if (row && isTerminalRunStatus(row.status)) {
      throw new StepFailure(
        `Workflow "${wf.name}" ${row.status}: ${String((row.error as { message?: string } | null)?.message ?? "")}`.trim(),
        "user",
        { childRunId: child.id },
      );
    }
    await new Promise((r) => setTimeout(r, POLL_MS));
  }
}
