import "server-only";
import { and, eq } from "drizzle-orm";
import { approvalDecisions, approvals, runs, users } from "@/db/schema";
import { isUniqueViolation } from "@/db/errors";
import { newId } from "@/lib/ids";
import { DecideApprovalInput } from "@/lib/schemas/runs";
import type { InputSpec } from "@/lib/workflow/definition";
import { FORM_FIELD_WORDS, resolveRunInput } from "@/lib/workflow/inputs";
import { EVENTS } from "@/inngest/events";
import {
  ConflictError,
  ForbiddenError,
  NotFoundError,
  PreconditionFailedError,
  ValidationError,
  fromZodError,
} from "../../errors";
import { requireRole, requireUserId, type ServiceContext } from "../context";
import { recordAudit } from "../audit/record-audit";
import { chainHistory } from "../history/chain-history";
import { enqueueOutbox } from "../outbox/enqueue-outbox";
import { appendRunEvents } from "../runs/run-events";
import { transitionApproval } from "../run-state/transition";
import { approverRefusal } from "./approval-rules";
import { parseResumeToken, verifyResumeToken } from "./resume-token";

export type DecisionChannel = "ui" | "api" | "cli" | "link" | "mcp";

/**
 * THE decision path for approval gates — the UI, tRPC, the HTTP API, the CLI and signed links
 * all call this. Checks, in one transaction under the approval's row lock: the actor may decide
 * (role, listed approvers, initiator rule), the gate is still pending and not expired
 * (compare-and-set: a double click decides once), and the resume token matches when one is
 * required. Quorum: N distinct approvers; any rejection rejects. A final decision resumes the run
 * through the outbox, and the audit row records a hash of exactly what the decider was shown.
 */
export async function decideApproval({
  ctx,
  input,
  via,
}: {
  ctx: ServiceContext;
  input: unknown;
  via: DecisionChannel;
}) {
  const ws = requireRole(ctx, "viewer");
  const parsed = DecideApprovalInput.safeParse(input);
  if (!parsed.success) throw fromZodError(parsed.error, "Decision");
  const { approvalId, approve, reason, resumeToken } = parsed.data;
  const tokenRequired = via === "api" || via === "cli" || via === "link";
  if (tokenRequired && !resumeToken)
    throw new ValidationError("resumeToken is required", [
      { path: ["resumeToken"], message: "Required" },
    ]);
  // A rejection carries a reason, whichever channel decides (UI, API and CLI, MCP): the run's
  // initiator and the audit need to know why.
  if (!approve && reason.length === 0) {
    throw new ValidationError("Give a reason for rejecting", [
      { path: ["reason"], message: "Required when rejecting" },
    ]);
  }
  const userId = requireUserId(ctx);
  const now = ctx.now();

  return ctx.db.transaction(async (tx) => {
    const [a] = await tx
      .select()
      .from(approvals)
      .where(and(eq(approvals.id, approvalId), eq(approvals.workspaceId, ws.id)))
      .for("update")
      .limit(1);
    if (!a || (parsed.data.runId && a.runId !== parsed.data.runId))
      throw new NotFoundError("Approval", approvalId);
    if (resumeToken) {
      const parsedToken = parseResumeToken(resumeToken);
      const [run] = await tx.select({ hash: runs.hash }).from(runs).where(eq(runs.id, a.runId));
      const valid =
        parsedToken?.approvalId === a.id &&
        verifyResumeToken(ctx.keys, resumeToken, {
          approvalId: a.id,
          runId: a.runId,
          stepPath: a.stepPath,
          attempt: a.attempt,
          hash: run?.hash ?? "",
          expiresAt: a.expiresAt,
        });
      if (!valid)
        throw new PreconditionFailedError("The resume token does not match this approval", {
          code: "RESUME_TOKEN_MISMATCH",
        });
    }
    if (a.status !== "pending")
      throw new PreconditionFailedError(`This approval was already decided (${a.status})`, {
        code: "ALREADY_DECIDED",
        status: a.status,
      });
    if (a.expiresAt.getTime() <= now.getTime())
      throw new PreconditionFailedError("This approval has expired", { code: "EXPIRED" });
    const [me] = await tx.select({ email: users.email }).from(users).where(eq(users.id, userId));
    const refusal = approverRefusal(
      {
        approvers: a.approvers,
        allowInitiator: a.allowInitiator,
        initiatorUserId: a.initiatorUserId,
      },
      { userId, email: me?.email ?? "", role: ws.role },
    );
    if (refusal) throw new ForbiddenError(refusal);
    const formData = approve ? approvalForm(a.form, parsed.data.form) : null;

    try {
      await tx.transaction(async (sp) => {
        const decisionId = newId("dec");
        await sp.insert(approvalDecisions).values({
          id: decisionId,
          approvalId: a.id,
          workspaceId: ws.id,
          actorType: ctx.actor.type === "token" ? "token" : "user",
          actorId: ctx.actor.type === "token" ? ctx.actor.tokenId : userId,
          userId,
          decision: approve ? "approved" : "rejected",
          reason,
          shownHash: a.shownHash,
          via,
          formData,
          createdAt: now,
        });
        await chainHistory(sp, [
          { workspaceId: ws.id, kind: "approval_decision", rowId: decisionId },
        ]);
      });
    } catch (e) {
      if (isUniqueViolation(e)) throw new ConflictError("You already decided this approval");
      throw e;
    }
    const decisions = await tx
      .select({ decision: approvalDecisions.decision })
      .from(approvalDecisions)
      .where(eq(approvalDecisions.approvalId, a.id));
    const approvedCount = decisions.filter((d) => d.decision === "approved").length;
    const final: "approved" | "rejected" | null = !approve
      ? "rejected"
      : approvedCount >= a.quorum
        ? "approved"
        : null;

    await appendRunEvents(
      tx,
      [
        {
          runId: a.runId,
          workspaceId: ws.id,
          type: "approval.decision",
          stepPath: a.stepPath,
          data: {
            approvalId: a.id,
            userId,
            decision: approve ? "approved" : "rejected",
            via,
            approvals: approvedCount,
            quorum: a.quorum,
          },
        },
      ],
      now,
    );
    if (final) {
      const done = await transitionApproval(tx, {
        id: a.id,
        to: final,
        set: { decidedAt: now, decisionReason: reason || null },
      });
      if (!done.won)
        throw new PreconditionFailedError("This approval was already decided", {
          code: "ALREADY_DECIDED",
        });
      await appendRunEvents(
        tx,
        [
          {
            runId: a.runId,
            workspaceId: ws.id,
            type: "approval.decided",
            stepPath: a.stepPath,
            data: { approvalId: a.id, status: final, reason },
          },
        ],
        now,
      );
      await enqueueOutbox(
        tx,
        [
          {
            workspaceId: ws.id,
            topic: "inngest",
            name: EVENTS.approvalDecided,
            payload: { approvalId: a.id, runId: a.runId, decision: final },
            id: `decided_${a.id}`,
          },
        ],
        now,
      );
    }
    await recordAudit(tx, ctx, {
      action: approve ? "approval.approved" : "approval.rejected",
      targetType: "approval",
      targetId: a.id,
      data: {
        runId: a.runId,
        stepId: a.stepId,
        reason,
        via,
        shownHash: a.shownHash,
        final: final ?? "pending",
        ...(formData ? { form: formData } : {}),
      },
    });
    return {
      approvalId: a.id,
      runId: a.runId,
      status: final ?? ("pending" as const),
      approvals: approvedCount,
      quorum: a.quorum,
    };
  });
}

/**
 * An approving decision's form values, checked against the gate's form with the run-input rules
 * (types, enums, required, defaults, unknown names): each problem names its field (`form.<name>`).
 * A gate without a form takes none. Rejecting never needs one (the caller skips this).
 */
function approvalForm(
  form: Record<string, unknown> | null,
  given: Record<string, unknown> | undefined,
): Record<string, unknown> | null {
  if (!form) return null;
  const result = resolveRunInput(form as Record<string, InputSpec>, given ?? {}, FORM_FIELD_WORDS);
  if (result.ok) return result.value;
  throw new ValidationError(
    `The approval form is incomplete or invalid: ${result.issues.map((i) => i.message).join(" ")}`,
    result.issues.map((i) => ({
      path: i.name ? ["form", i.name] : ["form"],
      message: i.message,
    })),
  );
}
