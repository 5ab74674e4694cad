import "server-only";
import { createHash } from "node:crypto";
import { and, asc, eq } from "drizzle-orm";
import type { Db } from "@/db/client";
import { approvalDecisions, approvals } from "@/db/schema";
import { newId } from "@/lib/ids";
import type { Keys } from "../../keys";
import { appendRunEvents } from "../runs/run-events";
import { signResumeToken } from "../approvals/resume-token";
import { openGate } from "./open-gate";
import type { AttemptKey } from "./step-records";
import { transitionApproval } from "./transition";

export interface OpenApprovalArgs {
  key: AttemptKey;
  /** Null for an inline run. */
  workflowId: string | null;
  hash: string;
  prompt: string;
  items: unknown;
  approvers: { roles?: string[]; users?: string[] };
  quorum: number;
  allowInitiator: boolean;
  initiatorUserId: string | null;
  onTimeout: "approve" | "reject";
  expiresAt: Date;
  /** The approver's form (field name → InputSpec), if the step declares one. */
  form?: Record<string, unknown> | null;
  priority?: string;
  dueAt?: Date | null;
  now: Date;
}

/** sha256 of exactly what deciders are shown, recorded with every decision. */
export function shownHash(prompt: string, items: unknown): string {
  return (
    "sha256:" +
    createHash("sha256")
      .update(JSON.stringify({ prompt, items: items ?? null }))
      .digest("hex")
  );
}

/**
 * Opens the gate: the approval record and the waiting step, in one transaction. Idempotent per
 * (run, step path, attempt), so a re-executed durable step finds the same approval.
 */
export async function openApproval(
  db: Db,
  keys: Keys,
  a: OpenApprovalArgs,
): Promise<{ approvalId: string; expiresAt: string; resumeToken: string }> {
  const row = await openGate(db, {
    key: a.key,
    now: a.now,
    attemptInput: { prompt: a.prompt, items: a.items, approvers: a.approvers, quorum: a.quorum },
    insert: async (tx) => {
      const [created] = await tx
        .insert(approvals)
        .values({
          id: newId("apr"),
          workspaceId: a.key.workspaceId,
          runId: a.key.runId,
          workflowId: a.workflowId,
          stepId: a.key.stepId,
          stepPath: a.key.path,
          attempt: a.key.attempt,
          status: "pending",
          prompt: a.prompt,
          items: a.items ?? null,
          approvers: a.approvers,
          quorum: a.quorum,
          allowInitiator: a.allowInitiator,
          initiatorUserId: a.initiatorUserId,
          onTimeout: a.onTimeout,
          shownHash: shownHash(a.prompt, a.items),
          expiresAt: a.expiresAt,
          form: a.form ?? null,
          priority: a.priority ?? "normal",
          dueAt: a.dueAt ?? null,
          createdAt: a.now,
        })
        .onConflictDoNothing()
        .returning();
      return created;
    },
    find: async (tx) => {
      const [existing] = await tx
        .select()
        .from(approvals)
        .where(
          and(
            eq(approvals.runId, a.key.runId),
            eq(approvals.stepPath, a.key.path),
            eq(approvals.attempt, a.key.attempt),
          ),
        );
      return existing!;
    },
    requested: (created) => ({
      type: "approval.requested",
      data: {
        approvalId: created.id,
        prompt: a.prompt,
        quorum: a.quorum,
        expiresAt: a.expiresAt.toISOString(),
        priority: a.priority ?? "normal",
        ...(a.dueAt ? { dueAt: a.dueAt.toISOString() } : {}),
      },
    }),
    waiting: (row) => ({ approvalId: row.id }),
  });
  const resumeToken = signResumeToken(keys, {
    approvalId: row.id,
    runId: row.runId,
    stepPath: row.stepPath,
    attempt: row.attempt,
    hash: a.hash,
    expiresAt: row.expiresAt,
  });
  return { approvalId: row.id, expiresAt: row.expiresAt.toISOString(), resumeToken };
}

export interface ApprovalOutcome {
  status: "approved" | "rejected";
  /** `approval_timeout` when the gate expired and onTimeout applied. */
  reason: string | null;
  timedOut: boolean;
  decisions: {
    userId: string;
    decision: string;
    reason: string;
    via: string;
    at: string;
    form?: Record<string, unknown>;
  }[];
  /**
   * The form values of the approval that completed the quorum (the last approving decision),
   * when the gate has a form and was approved by people; null otherwise (rejected, timed out).
   */
  form: Record<string, unknown> | null;
}

/**
 * Reads the gate's outcome after the wait ended. The database is the source of truth: a decision
 * that raced the timeout wins if it committed first; otherwise the gate expires now (compare-and-
 * set) and `onTimeout` applies, recorded as reason `approval_timeout`.
 */
export async function closeApproval(
  db: Db,
  args: { approvalId: string; runId: string; workspaceId: string; now: Date },
): Promise<ApprovalOutcome> {
  return db.transaction(async (tx) => {
    const [a] = await tx
      .select()
      .from(approvals)
      .where(eq(approvals.id, args.approvalId))
      .for("update");
    if (!a) throw new Error(`approval ${args.approvalId} disappeared`);
    let status = a.status;
    let reason = a.decisionReason;
    let timedOut = false;
    if (status === "pending") {
      status = "expired";
      reason = "approval_timeout";
      timedOut = true;
      await transitionApproval(tx, {
        id: a.id,
        to: "expired",
        set: { decidedAt: args.now, decisionReason: reason },
      });
      await appendRunEvents(
        tx,
        [
          {
            runId: a.runId,
            workspaceId: a.workspaceId,
            type: "approval.expired",
            stepPath: a.stepPath,
            data: { approvalId: a.id, onTimeout: a.onTimeout },
          },
        ],
        args.now,
      );
    }
    const decisions = await tx
      .select({
        userId: approvalDecisions.userId,
        decision: approvalDecisions.decision,
        reason: approvalDecisions.reason,
        via: approvalDecisions.via,
        at: approvalDecisions.createdAt,
        formData: approvalDecisions.formData,
      })
      .from(approvalDecisions)
      .where(eq(approvalDecisions.approvalId, a.id))
      .orderBy(asc(approvalDecisions.createdAt), asc(approvalDecisions.id));
    const effective: "approved" | "rejected" =
      status === "approved"
        ? "approved"
        : status === "expired"
          ? a.onTimeout === "approve"
            ? "approved"
            : "rejected"
          : "rejected";
    const lastApproval = decisions.filter((d) => d.decision === "approved").at(-1);
    return {
      status: effective,
      reason,
      timedOut,
      decisions: decisions.map(({ formData, ...d }) => ({
        ...d,
        at: d.at.toISOString(),
        ...(formData ? { form: formData } : {}),
      })),
      form: status === "approved" && a.form ? (lastApproval?.formData ?? null) : null,
    };
  });
}

/** An approval's decision once made (null while pending or unknown): the gate's look-back. */
export async function approvalDecision(db: Db, approvalId: string): Promise<string | null> {
  const [row] = await db
    .select({ status: approvals.status })
    .from(approvals)
    .where(eq(approvals.id, approvalId));
  return row && row.status !== "pending" ? row.status : null;
}
