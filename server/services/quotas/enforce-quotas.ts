import "server-only";
import { and, count, eq, isNull, lt, sql } from "drizzle-orm";
import type { Queryable } from "@/db/client";
import { quotaUsage, workflows } from "@/db/schema";
import { QUOTA_INFO, quotaMessage, quotaWindow, type QuotaKey } from "@/lib/quotas/plans";
import { checkMinInterval, compileSchedule } from "@/lib/triggers/cron";
import { QuotaExceededError } from "../../errors";
import type { ServiceConfig } from "../context";
import { addUsage, readUsage } from "./usage-counter";
import {
  loadWorkspaceQuota,
  planBehind,
  quotaFromSettings,
  type WorkspaceQuota,
} from "./workspace-quota";

/**
 * The enforcement points of workspace quotas (docs/quotas.md). Internal: callers have already
 * authorized the request; each function acts for one workspace and refuses with
 * QuotaExceededError, whose message names the limit and, for counted ones, the reset time.
 */

type QuotaConfig = Pick<ServiceConfig, "defaultPlan">;

function refuse(
  q: WorkspaceQuota,
  key: QuotaKey,
  now: Date,
  used?: number,
  detail?: string,
): QuotaExceededError {
  const limit = q.limits[key]!;
  const window = quotaWindow(QUOTA_INFO[key].window, now);
  return new QuotaExceededError(
    key,
    quotaMessage({
      key,
      limit,
      used,
      plan: planBehind(q, key),
      resetsAt: window?.resetsAt,
      detail,
    }),
    { limit, used, resetsAt: window?.resetsAt, now },
  );
}

/**
 * Runs per month: counts one run of the workspace in the calling transaction (the run's own), or
 * refuses when the month's count is at the limit. Rolled back with the run if it fails later.
 */
export async function chargeRun(
  tx: Queryable,
  config: QuotaConfig,
  workspaceId: string,
  now: Date,
  /** `workspaces.settings` when the caller has just read it in this transaction (admission). */
  settings?: unknown,
): Promise<void> {
  const q =
    settings === undefined
      ? await loadWorkspaceQuota(tx, workspaceId, config)
      : quotaFromSettings((settings as { quota?: unknown } | null)?.quota, config);
  const limit = q.limits.runsPerMonth;
  const window = quotaWindow("month", now)!;
  const key = { workspaceId, metric: "runs" as const, periodStart: window.start };
  const used = await addUsage(tx, key, 1, limit, now);
  if (used === null) throw refuse(q, "runsPerMonth", now, await readUsage(tx, key));
}

/** Runs per month, checked without counting (webhook accept: the run is created moments later). */
export async function assertRunsLeft(
  db: Queryable,
  q: WorkspaceQuota,
  workspaceId: string,
  now: Date,
): Promise<void> {
  const limit = q.limits.runsPerMonth;
  if (limit === null) return;
  const window = quotaWindow("month", now)!;
  const used = await readUsage(db, { workspaceId, metric: "runs", periodStart: window.start });
  if (used >= limit) throw refuse(q, "runsPerMonth", now, used);
}

/**
 * Definitions per workspace: refuses a new workflow when the workspace already has the limit's
 * number (deleted ones do not count). Serialized per workspace by an advisory lock held to the
 * end of the caller's transaction, so concurrent creates cannot both take the last slot.
 */
export async function assertDefinitionSlot(
  tx: Queryable,
  config: QuotaConfig,
  workspaceId: string,
  now: Date,
  adding = 1,
): Promise<void> {
  const q = await loadWorkspaceQuota(tx, workspaceId, config);
  const limit = q.limits.definitionsPerWorkspace;
  if (limit === null) return;
  await tx.execute(
    sql`select pg_advisory_xact_lock(hashtext(${"quota:definitions:" + workspaceId}))`,
  );
  const [row] = await tx
    .select({ n: count() })
    .from(workflows)
    .where(and(eq(workflows.workspaceId, workspaceId), isNull(workflows.deletedAt)));
  const used = row?.n ?? 0;
  if (used + adding > limit) throw refuse(q, "definitionsPerWorkspace", now, used);
}

/** Minimum schedule interval of the plan (the server's own minimum is checked by the caller). */
export async function assertScheduleInterval(
  db: Queryable,
  config: QuotaConfig,
  workspaceId: string,
  schedule: { cron: string; timezone: string },
  now: Date,
): Promise<void> {
  const q = await loadWorkspaceQuota(db, workspaceId, config);
  const limit = q.limits.minCronIntervalSeconds;
  if (limit === null) return;
  const verdict = checkMinInterval(compileSchedule(schedule.cron, schedule.timezone), limit, now);
  if (!verdict.ok)
    throw refuse(
      q,
      "minCronIntervalSeconds",
      now,
      undefined,
      `"${schedule.cron}" fires every ${verdict.shortestGapSeconds} s at its most frequent`,
    );
}

/**
 * Webhook requests per minute, across every webhook of the workspace and every app instance (a
 * counter row per minute). Old minute rows are pruned when a new minute's row is created.
 */
export async function takeWebhookRequest(
  db: Queryable,
  q: WorkspaceQuota,
  workspaceId: string,
  now: Date,
): Promise<void> {
  const limit = q.limits.webhookRequestsPerMinute;
  if (limit === null) return;
  const window = quotaWindow("minute", now)!;
  const key = { workspaceId, metric: "webhook_requests" as const, periodStart: window.start };
  const used = await addUsage(db, key, 1, limit, now);
  if (used === null) throw refuse(q, "webhookRequestsPerMinute", now, await readUsage(db, key));
  if (used === 1)
    await db
      .delete(quotaUsage)
      .where(
        and(
          eq(quotaUsage.workspaceId, workspaceId),
          eq(quotaUsage.metric, "webhook_requests"),
          lt(quotaUsage.periodStart, window.start),
        ),
      );
}

/**
 * The LLM budget of one step attempt: `maxTokens` caps what the step may ask the model for (the
 * per-step limit minus what this step already used); `beforeCall` refuses when the workflow's
 * monthly tokens are spent; `afterCall` counts a call's tokens (always: they were spent) and
 * refuses when the step went past its per-step limit.
 */
export interface LlmBudget {
  maxTokens(requested: number | undefined): number | undefined;
  beforeCall(): Promise<void>;
  afterCall(totalTokens: number): Promise<void>;
}

export async function llmBudget(
  db: Queryable,
  config: QuotaConfig,
  scope: { workspaceId: string; workflowId: string },
  now: () => Date,
): Promise<LlmBudget> {
  const q = await loadWorkspaceQuota(db, scope.workspaceId, config);
  const perStep = q.limits.llmTokensPerStep;
  const perMonth = q.limits.llmTokensPerWorkflowPerMonth;
  let stepUsed = 0;
  const key = () => ({
    workspaceId: scope.workspaceId,
    metric: "llm_tokens" as const,
    scopeId: scope.workflowId,
    periodStart: quotaWindow("month", now())!.start,
  });
  return {
    maxTokens(requested) {
      if (perStep === null) return requested;
      const left = Math.max(1, perStep - stepUsed);
      return requested === undefined ? left : Math.min(requested, left);
    },
    async beforeCall() {
      if (perStep !== null && stepUsed >= perStep)
        throw refuse(q, "llmTokensPerStep", now(), stepUsed);
      if (perMonth === null) return;
      const used = await readUsage(db, key());
      if (used >= perMonth) throw refuse(q, "llmTokensPerWorkflowPerMonth", now(), used);
    },
    async afterCall(totalTokens) {
      if (!(totalTokens > 0)) return;
      stepUsed += totalTokens;
      await addUsage(db, key(), totalTokens, null, now());
      if (perStep !== null && stepUsed > perStep)
        throw refuse(q, "llmTokensPerStep", now(), stepUsed);
    },
  };
}
