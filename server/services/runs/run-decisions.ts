import "server-only";
import { and, asc, eq, inArray, ne } from "drizzle-orm";
import { approvalDecisions, approvals, memberships, tasks, users } from "@/db/schema";
import type { Db } from "@/db/client";

/** One person's decision on an approval gate, with the decider's display name. */
export interface DecisionView {
  decision: string;
  reason: string;
  at: Date;
  via: string;
  /** Null when the decider is no longer a member of the workspace (their name is not shown). */
  byName: string | null;
}

export type RunDecision =
  | {
      kind: "approval";
      id: string;
      stepPath: string;
      prompt: string;
      status: string;
      decidedAt: Date | null;
      /** `approval_timeout` when the gate expired. */
      reason: string | null;
      decisions: DecisionView[];
    }
  | {
      kind: "task";
      id: string;
      stepPath: string;
      instructions: string;
      status: string;
      finishedAt: Date | null;
      byName: string | null;
      /** The failure reason given by whoever failed it (empty for a completed task). */
      reason: string | null;
      via: string | null;
    };

/**
 * The run's decided approval gates and finished tasks, in words: who (display names, read only
 * for members of the run's workspace — a removed person shows as null, never by id), when, why.
 */
export async function runDecisions(db: Db, workspaceId: string, runId: string) {
  const gates = await db
    .select()
    .from(approvals)
    .where(
      and(
        eq(approvals.workspaceId, workspaceId),
        eq(approvals.runId, runId),
        ne(approvals.status, "pending"),
      ),
    )
    .orderBy(asc(approvals.createdAt));
  const decisions = gates.length
    ? await db
        .select()
        .from(approvalDecisions)
        .where(
          and(
            eq(approvalDecisions.workspaceId, workspaceId),
            inArray(
              approvalDecisions.approvalId,
              gates.map((g) => g.id),
            ),
          ),
        )
        .orderBy(asc(approvalDecisions.createdAt), asc(approvalDecisions.id))
    : [];
  const done = await db
    .select()
    .from(tasks)
    .where(
      and(eq(tasks.workspaceId, workspaceId), eq(tasks.runId, runId), ne(tasks.status, "pending")),
    )
    .orderBy(asc(tasks.createdAt));
  const ids = [
    ...new Set([
      ...decisions.map((d) => d.userId),
      ...done.flatMap((t) => (t.finishedByUserId ? [t.finishedByUserId] : [])),
    ]),
  ];
  const names = new Map(
    ids.length
      ? (
          await db
            .select({ id: users.id, name: users.name })
            .from(users)
            .innerJoin(
              memberships,
              and(eq(memberships.userId, users.id), eq(memberships.workspaceId, workspaceId)),
            )
            .where(inArray(users.id, ids))
        ).map((u) => [u.id, u.name] as const)
      : [],
  );
  const out: RunDecision[] = [
    ...gates.map((g) => ({
      kind: "approval" as const,
      id: g.id,
      stepPath: g.stepPath,
      prompt: g.prompt,
      status: g.status,
      decidedAt: g.decidedAt,
      reason: g.decisionReason,
      decisions: decisions
        .filter((d) => d.approvalId === g.id)
        .map((d) => ({
          decision: d.decision,
          reason: d.reason,
          at: d.createdAt,
          via: d.via,
          byName: names.get(d.userId) ?? null,
        })),
    })),
    ...done.map((t) => ({
      kind: "task" as const,
      id: t.id,
      stepPath: t.stepPath,
      instructions: t.instructions,
      status: t.status,
      finishedAt: t.finishedAt,
      byName: t.finishedByUserId ? (names.get(t.finishedByUserId) ?? null) : null,
      reason: t.failureReason,
      via: t.finishedVia,
    })),
  ];
  return out;
}
