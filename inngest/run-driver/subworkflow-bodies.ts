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
import { createChildRun } from "@/server/services/runs/create-child-run";
import { loadVersionByNumber } from "@/server/services/workflows/load-workflow";
import { engineNow, engineRuntime, engineServiceContext } from "./runtime";
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
  const ctx = await engineServiceContext();
  try {
    const wf = await resolveWorkflowRef(ctx.db, a.key.workspaceId, c.workflow);
    const versionId =
      c.version && c.version !== "latest"
        ? (await loadVersionByNumber(ctx.db, a.key.workspaceId, wf.id, c.version)).id
        : undefined;
    await beginAttempt(ctx.db, a.key, {
      input: { workflow: c.workflow, version: c.version ?? "latest", input: c.input },
      now: engineNow(),
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
    await markAttemptWaiting(ctx.db, a.key, engineNow(), { childRunId: child.run.id });
    return { childRunId: child.run.id, workflowName: wf.name };
  } catch (e) {
    return failStep(a.key, message(e));
  }
}

export async function endChildBody(a: {
  key: AttemptKey;
  childRunId: string;
  result: { ok: true; output: unknown } | { ok: false; message: string };
}) {
  const { db } = await engineRuntime();
  const redact = createRedactor([]);
  if (a.result.ok) {
    const output = {
      type: a.key.stepType,
      data: redact.value(a.result.output ?? null),
      meta: { childRunId: a.childRunId },
    };
    await endAttempt(db, a.key, { status: "completed", output }, engineNow());
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
    engineNow(),
  );
  return { ok: false as const, error: { message: a.result.message, childRunId: a.childRunId } };
}
