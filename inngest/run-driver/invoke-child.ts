import "server-only";
import { createHash } from "node:crypto";
import { eq } from "drizzle-orm";
import { runs } from "@/db/schema";
import { EVENTS } from "@/inngest/events";
import { enqueueOutbox } from "@/server/services/outbox/enqueue-outbox";
import { createRun } from "@/server/services/runs/create-run";
import type { AttemptKey } from "@/server/services/run-state/step-records";
import { resolveWorkflowRef } from "@/server/services/run-state/resolve-workflow-ref";
import { StepFailure } from "../actions/types";
import { engineNow, engineRuntime } from "./runtime";

const POLL_MS = 250;

/**
 * Runs another workflow of the workspace as a child of the current step and waits for its output
 * (agent tools). The child is a full run — recorded, visible, cancellable — started outside
 * admission (it lives in the parent's slot).
 */
export async function invokeChildWorkflow(args: {
  parent: AttemptKey;
  rootRunId: string;
  ref: string;
  input: Record<string, unknown>;
  deadline: number;
  signal: AbortSignal;
}): Promise<unknown> {
  const rt = await engineRuntime();
  const ctx = {
    db: rt.db,
    keys: rt.keys,
    config: rt.config,
    log: rt.log,
    now: () => engineNow(),
    actor: { type: "system" as const, name: "engine" },
    workspace: { id: args.parent.workspaceId, role: "owner" as const },
  };
  const wf = await resolveWorkflowRef(rt.db, args.parent.workspaceId, args.ref);
  const child = await rt.db.transaction(async (tx) => {
    const r = await createRun(tx, ctx, {
      workspaceId: args.parent.workspaceId,
      workflowId: wf.id,
      input: args.input,
      trigger: {
        type: "subworkflow",
        id: args.parent.runId,
        payload: { parentRunId: args.parent.runId, stepPath: args.parent.path },
      },
      initiator: { type: "run", id: args.parent.runId },
      parent: { runId: args.parent.runId, stepId: args.parent.stepId, rootRunId: args.rootRunId },
      // A retried attempt (or a repeated identical tool call) finds the same child run.
      idempotencyKey: `child:${args.parent.runId}:${args.parent.path}:${args.parent.attempt}:${createHash("sha256").update(JSON.stringify(args.input)).digest("hex").slice(0, 32)}`,
    });
    if (!r.deduplicated) {
      await enqueueOutbox(tx, [
        {
          workspaceId: args.parent.workspaceId,
          topic: "inngest",
          name: EVENTS.runStart,
          payload: { runId: r.run.id, workspaceId: args.parent.workspaceId },
          id: `start_${r.run.id}`,
        },
      ]);
    }
    return r.run;
  });
  for (;;) {
    if (args.signal.aborted)
      throw new StepFailure(`Stopped while waiting for workflow "${wf.name}"`, "operational");
    if (engineNow().getTime() > args.deadline)
      throw new StepFailure(`Workflow "${wf.name}" did not finish in time`, "operational");
    const [row] = await rt.db
      .select({ status: runs.status, output: runs.output, error: runs.error })
      .from(runs)
      .where(eq(runs.id, child.id));
    if (row?.status === "completed") return row.output ?? null;
    if (row && ["failed", "cancelled", "timed_out"].includes(row.status)) {
      throw new StepFailure(
        `Workflow "${wf.name}" ${row.status}: ${String((row.error as { message?: string } | null)?.message ?? "")}`.trim(),
        "user",
        { childRunId: child.id },
      );
    }
    await new Promise((r) => setTimeout(r, POLL_MS));
  }
}
