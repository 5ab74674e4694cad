import "server-only";
import { createRedactor } from "@/lib/redact";
import type { StepConfig, TemplateContext } from "@/lib/workflow";
import { resolveWorkflowRef } from "@/server/services/run-state/resolve-workflow-ref";
import {
  beginAttempt,
  endAttempt,
  markAttemptWaiting,
  type AttemptKey,
} from "@/server/services/run-state/step-records";
import {
  abandonQueuedChild,
  childRunResult,
  createChildRun,
} from "@/server/services/runs/create-child-run";
import { isTerminalRunStatus } from "@/lib/workflow/status";
import { loadVersionByNumber } from "@/server/services/workflows/load-workflow";
import { runtimeNow, stepRuntime, runtimeServiceContext } from "./runtime";
import { failStep, message, resolve } from "./step-bodies";

/** Server-side bodies of the `subworkflow` step (the child is started with a durable invoke). */

export async function startChildBody(a: {
  key: AttemptKey;
  rootRunId: string;
  config: unknown;
  context: TemplateContext;
  override?: { workflow: string; version?: string | null; input: unknown };
}) {
  let c: { workflow: string; version?: string | null; input: unknown };
  try {
    c = a.override ?? (resolve("subworkflow", a.config, a.context) as StepConfig<"subworkflow">);
  } catch (e) {
    return failStep(a.key, `The subworkflow's config is invalid: ${message(e)}`);
  }
  const ctx = await runtimeServiceContext();
  try {
    const wf = await resolveWorkflowRef(ctx.db, a.key.workspaceId, c.workflow);
    const versionId =
      c.version && c.version !== "latest"
        ? (await loadVersionByNumber(ctx.db, a.key.workspaceId, wf.id, c.version)).id
        : undefined;
    await beginAttempt(ctx.db, a.key, {
      input: { workflow: c.workflow, version: c.version ?? "latest", input: c.input },
      now: runtimeNow(),
    });
    const child = await createChildRun(ctx, {
      parent: a.key,
      rootRunId: a.rootRunId,
      workflowId: wf.id,
      versionId,
      input: c.input ?? {},
      idempotencyKey: `sub:${a.key.runId}:${a.key.path}:${a.key.attempt}`,
      start: false,
    });
    await markAttemptWaiting(ctx.db, a.key, runtimeNow(), {
      childRunId: child.run.id,
      ...(child.queued ? { queued: true } : {}),
    });
    return { childRunId: child.run.id, workflowName: wf.name, queued: child.queued };
  } catch (e) {
    return failStep(a.key, message(e));
  }
}

/**
 * Where a child that waited for admission is: still queued or running (`done: false`), or ended
 * (its output, or why not). Past the parent's deadline a child still queued is cancelled.
 */
export async function checkChildBody(a: {
  childRunId: string;
  workflowName: string;
  deadline: number;
}): Promise<
  | { done: false }
  | { done: true; ok: true; output: unknown }
  | { done: true; ok: false; message: string }
> {
  const { db } = await stepRuntime();
  const row = await childRunResult(db, a.childRunId);
  if (!row) return { done: true, ok: false, message: `Workflow "${a.workflowName}" run vanished` };
  if (row.status === "completed") return { done: true, ok: true, output: row.output ?? null };
  if (isTerminalRunStatus(row.status)) {
    const why = (row.error as { message?: string } | null)?.message;
    return {
      done: true,
      ok: false,
      message: `Workflow "${a.workflowName}" did not complete: ${row.status}${why ? `: ${why}` : ""}`,
    };
  }
  if (row.status === "queued" && runtimeNow().getTime() >= a.deadline) {
    if (await abandonQueuedChild(db, a.childRunId, runtimeNow()))
      return {
        done: true,
        ok: false,
        message: `Workflow "${a.workflowName}" was still queued for admission (its maxConcurrentRuns was full) when this run reached its deadline`,
      };
  }
  return { done: false };
}

export async function endChildBody(a: {
  key: AttemptKey;
  childRunId: string;
  result: { ok: true; output: unknown } | { ok: false; message: string };
}) {
  const { db } = await stepRuntime();
  const redact = createRedactor([]);
  if (a.result.ok) {
    const output = {
      type: a.key.stepType,
      data: redact.value(a.result.output ?? null),
      meta: { childRunId: a.childRunId },
    };
    await endAttempt(db, a.key, { status: "completed", output }, runtimeNow());
    return { ok: true as const, output };
  }
  await endAttempt(
    db,
    a.key,
    {
      status: "failed",
      error: { message: a.result.message, childRunId: a.childRunId },
      failureClass: "user",
    },
    runtimeNow(),
  );
  return { ok: false as const, error: { message: a.result.message, childRunId: a.childRunId } };
}
