import "server-only";
import {
  parseDuration,
  tryParseDuration,
  type StepConfig,
  type TemplateContext,
} from "@/lib/workflow";
import {
  approvalDecision,
  closeApproval,
  openApproval,
} from "@/server/services/run-state/approval-gate";
import { endAttempt, type AttemptKey } from "@/server/services/run-state/step-records";
import { runtimeNow, stepRuntime } from "./runtime";
import { failStep, message, resolve } from "./step-bodies";

/** Server-side bodies of the `approval` step: open the gate, look back for a decision, close it. */

export async function openApprovalBody(a: {
  key: AttemptKey;
  workflowId: string | null;
  hash: string;
  config: unknown;
  context: TemplateContext;
  initiatorUserId: string | null;
  deadline: number;
}) {
  const rt = await stepRuntime();
  let c: StepConfig<"approval">;
  try {
    c = resolve("approval", a.config, a.context) as StepConfig<"approval">;
  } catch (e) {
    return failStep(
      a.key,
      `The approval's config is invalid after resolving templates: ${message(e)}`,
    );
  }
  const now = runtimeNow();
  const wanted = now.getTime() + parseDuration(c.timeout);
  const expiresAt = new Date(Math.min(wanted, a.deadline));
  const opened = await openApproval(rt.db, rt.keys, {
    key: a.key,
    workflowId: a.workflowId,
    hash: a.hash,
    prompt: c.prompt,
    items: c.items ?? null,
    approvers: c.approvers,
    quorum: c.quorum,
    allowInitiator: c.allowInitiator,
    initiatorUserId: a.initiatorUserId,
    onTimeout: c.onTimeout,
    expiresAt,
    form: c.form ?? null,
    priority: c.priority ?? "normal",
    dueAt: dueDate(c.due, now),
    now,
  });
  return {
    approvalId: opened.approvalId,
    expiresAt: opened.expiresAt,
    cappedByDeadline: wanted > a.deadline,
  };
}

/** An approval's `due` (a duration from now, or an ISO date-time; checked by the config schema). */
function dueDate(due: string | undefined, now: Date): Date | null {
  if (due === undefined) return null;
  const duration = tryParseDuration(due);
  const at = duration.ok ? now.getTime() + duration.ms : Date.parse(due);
  return Number.isNaN(at) ? null : new Date(at);
}

export async function closeApprovalBody(a: {
  key: AttemptKey;
  approvalId: string;
  cappedByDeadline: boolean;
}) {
  const { db } = await stepRuntime();
  const now = runtimeNow();
  const outcome = await closeApproval(db, {
    approvalId: a.approvalId,
    runId: a.key.runId,
    workspaceId: a.key.workspaceId,
    now,
  });
  const deadlineHit = outcome.timedOut && a.cappedByDeadline;
  const output = {
    type: "approval",
    data: {
      decision: outcome.status,
      reason: outcome.reason,
      decisions: outcome.decisions,
      form: outcome.form,
    },
    meta: { approvalId: a.approvalId, timedOut: outcome.timedOut },
  };
  await endAttempt(
    db,
    a.key,
    deadlineHit
      ? {
          status: "cancelled",
          error: { message: "The run reached its deadline while waiting for approval" },
        }
      : { status: "completed", output, port: outcome.status },
    now,
  );
  return { port: outcome.status, output, deadlineHit };
}

/** A decision recorded before the executor registered the wait (the look-back). */
export async function checkApprovalBody(a: { approvalId: string }) {
  const { db } = await stepRuntime();
  const decided = await approvalDecision(db, a.approvalId);
  return decided ? { decided } : null;
}
