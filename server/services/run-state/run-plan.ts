import "server-only";
import { and, eq, isNull, sql } from "drizzle-orm";
import type { Db, Queryable } from "@/db/client";
import { LRUCache } from "lru-cache";
import { runs, workflows, workspaces } from "@/db/schema";
import type { RunRepository } from "@/lib/workflow";
import { tightenConstraints, type RunLimits } from "@/lib/workflow/run-limits";
import type { PlanId } from "@/lib/quotas/plans";
import type { ServiceConfig } from "../context";
import { planBehind, quotaFromSettings } from "../quotas/workspace-quota";
import { appendRunEvents } from "../runs/run-events";
import { runSystemEventData } from "./finish-run";
import { enqueueWorkflowEvents } from "./workflow-events";
import { contentOf, definitionByHash } from "../workflows/version-content";
import { EXECUTING_STATUSES } from "@/lib/workflow/status";
import { transitionRun } from "./transition";
import { noteRunStarted } from "@/server/observability/run-observer";

/**
 * The run driver's execution model, memoized with the plan so a run finishes on the path it
 * started on: 2 = pure steps run in waves (inngest/run-driver/waves.ts). Plans memoized before
 * waves have none and keep one durable step per step.
 */
export const ENGINE_VERSION = 2;

/** Everything the orchestrator needs, loaded once per run (memoized by the durable step). */
export interface RunPlan {
  /** See ENGINE_VERSION; absent = 1. */
  engineVersion?: number;
  runId: string;
  workspaceId: string;
  /** Null for an inline run. */
  workflowId: string | null;
  rootRunId: string;
  parentRunId: string | null;
  version: string;
  hash: string;
  /** Normalized definition (JSON). */
  definition: Record<string, unknown>;
  input: Record<string, unknown>;
  trigger: unknown;
  triggerType: string;
  /** The user who started the run, if any (approvals refuse them unless allowInitiator). */
  initiatorUserId: string | null;
  startedAt: string;
  deadlineAt: string;
  /** An editor test run (docs/runs.md "Testing while building"): emits no events. Absent: false. */
  isTest?: boolean;
  /** Rerun from a step: reused outcomes by step id. */
  seed: Record<
    string,
    { status: "completed" | "failed" | "skipped"; port?: string; output?: unknown; error?: unknown }
  > | null;
  /** Per-run limits tightening the definition's constraints (null: none). */
  limits?: RunLimits | null;
  /** Repository context (SPEC §3; absent: none). sha is null until the "repository" step pins it. */
  repository?: RunRepository | null;
  /** The plan's "steps per run" quota when it limits this run (absent: unlimited, or older plans). */
  stepsQuota?: { limit: number; plan?: PlanId };
  /**
   * The engine continues a run correctly after a lone untagged step that follows parallel ones
   * (the embedded executor's one-discovery-per-run scheduling): such steps may then run inline.
   * Absent or false: every step after a run's first concurrent one is race-tagged (required on a
   * real Inngest; see `sid` in inngest/run-driver/types.ts). Fixed per run by the plan step.
   */
  inlineAfterParallel?: boolean;
}

export type LoadPlanResult = { ok: true; plan: RunPlan } | { ok: false; reason: string };

// Stored definitions are immutable by hash: the plan's copy is read once per process (on
// globalThis, as Next loads server modules more than once). Nothing mutates the plan's definition.
type Global = typeof globalThis & { __sluicePlanDefinitions?: LRUCache<string, object> };
const planDefinitions = ((globalThis as Global).__sluicePlanDefinitions ??= new LRUCache<
  string,
  object
>({ max: 500 }));

async function rawDefinition(
  tx: Queryable,
  workspaceId: string,
  hash: string,
): Promise<Record<string, unknown>> {
  const key = `${workspaceId}:${hash}`;
  const hit = planDefinitions.get(key);
  if (hit) return hit as Record<string, unknown>;
  const definition = await contentOf(tx, workspaceId, hash);
  planDefinitions.set(key, definition);
  return definition;
}

/**
 * Marks the run started (first time only: start time and deadline are set once, so a replayed
 * or restarted orchestrator sees the same values) and returns its plan. A run that already ended
 * (cancelled while queued, say) is not started.
 */
export async function loadRunPlan(
  db: Db,
  runId: string,
  now: Date,
  executionId?: string,
  config: Pick<ServiceConfig, "defaultPlan" | "engineVersion"> = {},
): Promise<LoadPlanResult> {
  return db.transaction(async (tx) => {
    // The run (locked), its workspace's settings and its workflow's name in one read (issue 28).
    const [row] = await tx
      .select({
        run: runs,
        settings: workspaces.settings,
        wfName: workflows.name,
        wfSlug: workflows.slug,
      })
      .from(runs)
      .innerJoin(workspaces, eq(workspaces.id, runs.workspaceId))
      .leftJoin(workflows, eq(workflows.id, runs.workflowId))
      .where(eq(runs.id, runId))
      .for("update", { of: runs });
    if (!row) return { ok: false, reason: "run not found" };
    const { run } = row;
    if (!(EXECUTING_STATUSES as readonly string[]).includes(run.status))
      return { ok: false, reason: `run is ${run.status}` };
    // Exactly one durable execution drives a run: the first to load the plan claims it (a
    // re-sent start, e.g. by the reaper's safety net, finds it claimed and does nothing).
    let claim: { inngestRunId?: string } = {};
    if (executionId) {
      if (run.inngestRunId && run.inngestRunId !== executionId)
        return { ok: false, reason: "another execution drives this run" };
      if (!run.inngestRunId) claim = { inngestRunId: executionId };
    }
    const definition = await rawDefinition(tx, run.workspaceId, run.hash);
    const { timeoutMs } = tightenConstraints(
      (await definitionByHash(tx, run.workspaceId, run.hash)).constraints,
      run.limits,
    );
    let { startedAt, deadlineAt } = run;
    if (!startedAt) {
      startedAt = now;
      deadlineAt = new Date(now.getTime() + timeoutMs);
      // The claim and the start in one write (the row is locked above).
      await tx
        .update(runs)
        .set({ ...claim, startedAt, deadlineAt, updatedAt: now })
        .where(and(eq(runs.id, runId), isNull(runs.startedAt)));
      noteRunStarted(tx, run, startedAt);
      await appendRunEvents(
        tx,
        [
          {
            runId,
            workspaceId: run.workspaceId,
            type: "run.started",
            data: { version: run.version },
          },
        ],
        now,
      );
      // Once per run, with the start: event triggers may listen (the chain depth of
      // fireEventTriggers stops a workflow that starts itself on its own run.started). Test
      // runs trigger nothing.
      if (!run.isTest)
        await enqueueWorkflowEvents(
          tx,
          run.workspaceId,
          [
            {
              id: `sys_started_${run.id}`,
              name: "run.started",
              data: await runSystemEventData(
                tx,
                run,
                { status: "running", reason: null },
                { name: row.wfName, slug: row.wfSlug },
              ),
              source: { runId: run.id, system: true },
            },
          ],
          now,
        );
    } else if (claim.inngestRunId) await tx.update(runs).set(claim).where(eq(runs.id, runId));
    const initiatorUserId = run.initiatorType === "user" ? run.initiatorId : run.accountableUserId;
    const quota = quotaFromSettings((row.settings ?? {}).quota, config);
    const stepsLimit = quota.limits.stepsPerRun;
    // Version 1 plans carry no version, exactly like the plans memoized before versions existed.
    const engineVersion = config.engineVersion ?? ENGINE_VERSION;
    return {
      ok: true,
      plan: {
        ...(engineVersion >= 2 ? { engineVersion } : {}),
        runId,
        workspaceId: run.workspaceId,
        workflowId: run.workflowId,
        rootRunId: run.rootRunId,
        parentRunId: run.parentRunId,
        version: run.version,
        hash: run.hash,
        definition,
        input: run.input,
        trigger: run.triggerPayload ?? null,
        triggerType: run.triggerType,
        initiatorUserId: initiatorUserId ?? null,
        startedAt: startedAt.toISOString(),
        deadlineAt: (deadlineAt ?? new Date(startedAt.getTime() + timeoutMs)).toISOString(),
        seed: (run.rerunSeed as RunPlan["seed"]) ?? null,
        ...(run.isTest ? { isTest: true } : {}),
        limits: run.limits ?? null,
        repository:
          run.repositoryUrl && run.repositoryRef
            ? { url: run.repositoryUrl, ref: run.repositoryRef, sha: run.repositorySha }
            : null,
        ...(stepsLimit === null
          ? {}
          : { stepsQuota: { limit: stepsLimit, plan: planBehind(quota, "stepsPerRun") } }),
      },
    };
  });
}

/**
 * A run is `waiting` while every active step waits (approval, delay, event), `running` otherwise.
 * Derived from the step rows, so concurrent steps cannot leave it wrong.
 */
export async function refreshRunStatus(db: Queryable, runId: string, now: Date): Promise<void> {
  await transitionRun(db, {
    id: runId,
    to: {
      when: sql`exists (select 1 from run_steps s where s.run_id = ${runId} and s.status = 'running')`,
      then: "running",
      else: "waiting",
    },
    set: { updatedAt: now },
    where: sql`exists (select 1 from run_steps s where s.run_id = ${runId} and s.status in ('running', 'waiting'))`,
  });
}
