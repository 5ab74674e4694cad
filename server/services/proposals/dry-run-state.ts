import "server-only";
import { and, desc, eq, inArray, isNotNull } from "drizzle-orm";
import type { Queryable } from "@/db/client";
import { proposals, runs, runSteps } from "@/db/schema";
import { DRY_RUN_DEFAULT_RUNS, type DryRunStatus } from "@/lib/schemas/proposals";
import type { JsonValue } from "@/lib/workflow";
import type { DryRunReport, RecordedRun, RecordedStep } from "@/lib/workflow/dry-run-types";
import { TERMINAL_RUN_STATUSES } from "@/lib/workflow/status";
import { contentOf } from "../workflows/version-content";

/**
 * Internal, for the proposal-dry-run function (no authorization: it acts for a proposal of this
 * workspace). The last `limit` finished runs of a workflow as dry-run input, each step at its
 * last attempt.
 */
export async function loadRecordedRuns(
  db: Queryable,
  workspaceId: string,
  workflowId: string,
  limit = DRY_RUN_DEFAULT_RUNS,
): Promise<RecordedRun[]> {
  const rows = await db
    .select()
    .from(runs)
    .where(
      and(
        eq(runs.workspaceId, workspaceId),
        eq(runs.workflowId, workflowId),
        inArray(runs.status, [...TERMINAL_RUN_STATUSES]),
        isNotNull(runs.finishedAt),
      ),
    )
    .orderBy(desc(runs.finishedAt), desc(runs.id))
    .limit(limit);
  return withSteps(db, workspaceId, rows);
}

/** Internal (shadow runs): one finished run of the workspace as replay input, null if absent. */
export async function loadRecordedRun(
  db: Queryable,
  workspaceId: string,
  runId: string,
): Promise<{ run: RecordedRun; versionId: string | null; workflowId: string | null } | null> {
  const [row] = await db
    .select()
    .from(runs)
    .where(and(eq(runs.workspaceId, workspaceId), eq(runs.id, runId)));
  if (!row || !row.finishedAt) return null;
  const [run] = await withSteps(db, workspaceId, [row]);
  return { run: run!, versionId: row.versionId, workflowId: row.workflowId };
}

async function withSteps(
  db: Queryable,
  workspaceId: string,
  rows: Array<typeof runs.$inferSelect>,
): Promise<RecordedRun[]> {
  if (rows.length === 0) return [];
  const steps = await db
    .select()
    .from(runSteps)
    .where(
      and(
        eq(runSteps.workspaceId, workspaceId),
        inArray(
          runSteps.runId,
          rows.map((r) => r.id),
        ),
      ),
    );
  const last = new Map<string, typeof runSteps.$inferSelect>();
  for (const s of steps) {
    const key = `${s.runId}\u0000${s.path}`;
    const seen = last.get(key);
    if (!seen || s.attempt > seen.attempt) last.set(key, s);
  }
  return rows.map((r) => ({
    runId: r.id,
    status: r.status,
    versionLabel: r.version,
    input: (r.input ?? {}) as Record<string, JsonValue>,
    trigger: (r.triggerPayload ?? null) as Record<string, JsonValue> | null,
    output: (r.output ?? null) as JsonValue | null,
    steps: [...last.values()]
      .filter((s) => s.runId === r.id)
      .sort((a, b) => a.createdAt.getTime() - b.createdAt.getTime())
      .map((s): RecordedStep => ({
        path: s.path,
        stepId: s.stepId,
        stepType: s.stepType,
        status: s.status,
        output: (s.output ?? null) as JsonValue | null,
        port: s.port,
        error: s.error ? { message: String(s.error.message ?? "failed") } : null,
        input: (s.input ?? null) as JsonValue | null,
      })),
  }));
}

export interface DryRunJob {
  workflowId: string;
  baseHash: string;
  proposedHash: string;
  definition: Record<string, unknown>;
}

/**
 * Claims a dry-run request: pending → running for exactly this request number (a newer request
 * or a closed proposal makes it a no-op, null). Loads what the replay needs.
 */
export async function startDryRun(
  db: Queryable,
  args: { proposalId: string; workspaceId: string; request: number; total: number },
  now: Date,
): Promise<DryRunJob | null> {
  const [p] = await db
    .update(proposals)
    .set({ dryRunStatus: "running", dryRunDone: 0, dryRunTotal: args.total, updatedAt: now })
    .where(
      and(
        eq(proposals.id, args.proposalId),
        eq(proposals.workspaceId, args.workspaceId),
        eq(proposals.dryRunRequest, args.request),
        inArray(proposals.dryRunStatus, ["pending", "running"]),
      ),
    )
    .returning();
  if (!p) return null;
  return {
    workflowId: p.workflowId,
    baseHash: p.baseHash,
    proposedHash: p.proposedHash,
    definition: await contentOf(db, args.workspaceId, p.proposedHash),
  };
}

/** Stores progress, the report or the failure of one dry-run request (stale requests are ignored). */
export async function recordDryRun(
  db: Queryable,
  args: {
    proposalId: string;
    workspaceId: string;
    request: number;
    status: DryRunStatus;
    done?: number;
    total?: number;
    report?: DryRunReport | null;
    error?: string | null;
  },
  now: Date,
): Promise<boolean> {
  const moved = await db
    .update(proposals)
    .set({
      dryRunStatus: args.status,
      ...(args.done !== undefined ? { dryRunDone: args.done } : {}),
      ...(args.total !== undefined ? { dryRunTotal: args.total } : {}),
      ...(args.report !== undefined
        ? { dryRunReport: args.report as unknown as Record<string, unknown> | null }
        : {}),
      ...(args.error !== undefined ? { dryRunError: args.error } : {}),
      updatedAt: now,
    })
    .where(
      and(
        eq(proposals.id, args.proposalId),
        eq(proposals.workspaceId, args.workspaceId),
        eq(proposals.dryRunRequest, args.request),
      ),
    )
    .returning({ id: proposals.id });
  return moved.length === 1;
}
