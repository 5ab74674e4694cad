import "server-only";
import { and, desc, eq } from "drizzle-orm";
import type { Queryable } from "@/db/client";
import { isUniqueViolation } from "@/db/errors";
import { runs } from "@/db/schema";
import { newId } from "@/lib/ids";
import {
  INLINE_VERSION,
  TEST_VERSION,
  type InitiatorType,
  type TriggerType,
} from "@/lib/schemas/runs";
import { resolveRunInput, WorkflowDefinition, type RepositoryOverride } from "@/lib/workflow";
import { runLimitIssues, storedRunLimits, type RunLimits } from "@/lib/workflow/run-limits";
import { tighterCap } from "@/lib/quotas/plans";
import { DomainError, PreconditionFailedError, ValidationError } from "../../errors";
import type { ServiceContext } from "../context";
import { loadVersion, loadWorkflow, type VersionRow } from "../workflows/load-workflow";
import { definitionByHash } from "../workflows/version-content";
import { applyAdmission, planAdmission } from "./admission";
import { admissionLimits, slotRefusal } from "./admission-limits";
import { chargeRun } from "../quotas/enforce-quotas";
import { loadWorkspaceQuota } from "../quotas/workspace-quota";
import { appendRunEvents } from "./run-events";
import type { RunRow } from "./load-run";
import { runRepository, type RunRepositoryColumns } from "./new-run-repository";
import { findByKey, replay } from "./run-idempotency";
import type { RunBatchCache } from "./run-batch-cache";
import { skipOverflowedRun } from "./skip-overflowed-run";

export interface CreateRunArgs {
  workspaceId: string;
  /** The workflow to run, or null for an inline run (an unsaved definition, see `inlineHash`). */
  workflowId: string | null;
  /** A version id; default: the workflow's current published version. */
  versionId?: string;
  /** Inline runs: the hash of the definition already stored in definition_contents. */
  inlineHash?: string;
  input: unknown;
  trigger: { type: TriggerType; id?: string | null; payload?: unknown };
  initiator: { type: InitiatorType; id?: string | null };
  /** The user the per-user limit counts the run against (null for system triggers). */
  accountableUserId?: string | null;
  idempotencyKey?: string | null;
  /**
   * A key the caller chose (API, UI, CLI, MCP): sending it again with a different request (another
   * input or version) is refused with IdempotencyKeyReusedError instead of returning the first
   * run. Internal keys (deliveries, schedule ticks, children) keep plain deduplication.
   */
  strictIdempotency?: boolean;
  /**
   * A recording (MCP recording mode): its recorder drives it step by step, not the engine — it
   * is running at once and never admitted, so no engine start is queued for it.
   */
  recording?: boolean;
  /**
   * A child run (subworkflow, workflow loop, agent tool): admitted like any run but within its
   * tree's workspace slot (planAdmission). `startsItself`: the parent starts it with a durable
   * invoke when it is admitted at once, so no start message is sent for it then.
   */
  parent?: { runId: string; stepId: string; rootRunId: string; startsItself?: boolean };
  rerun?: { ofRunId: string; fromStepId?: string | null; seed?: Record<string, unknown> };
  /**
   * An editor test run (docs/runs.md "Testing while building"): runs the draft snapshot
   * `inlineHash` under its workflow, reusing `seed` outcomes without executing those steps; counts
   * against no quota and publishes no events. A child of a test run is a test run too.
   */
  test?: { seed?: Record<string, unknown> };
  /**
   * Manual runs (UI, API, CLI): another ref, or URL and ref, for the definition's repository;
   * webhooks: another ref read from the delivery (never a URL: the definition's credentials go
   * only to its own host). Other triggers are refused (SPEC §3).
   */
  repositoryOverride?: RepositoryOverride;
  /** Reruns: the original run's repository, pinned SHA included, reused as is. */
  repositoryPin?: RunRepositoryColumns;
  /** Disabled workflows do not start (manual, triggers); reruns and children may opt in. */
  allowDisabled?: boolean;
  /** Tighter limits for this run (docs/cli.md "Per-run limits"); a looser one is refused. */
  limits?: RunLimits | null;
  /**
   * Reruns inherit the original's limits unchecked: on another version they may exceed its
   * constraints, and the engine applies the smaller value anyway (tightenConstraints).
   */
  limitsInherited?: boolean;
  /** A pre-generated run id (webhook inbox: the id was answered before the run existed). */
  runId?: string;
  /**
   * Leave the run queued: the caller admits a whole batch with one admitQueuedRuns pass, then
   * applies the "skip" overflow policy with skipOverflowedRun.
   */
  deferAdmission?: boolean;
  /**
   * One of many runs this transaction creates (the webhook admitter): version pins and workspace
   * settings come from the batch's reads, and a keyed run skips the lookup before its insert (a
   * repeated key is caught by the insert's unique index and answered the same way).
   */
  batchCache?: RunBatchCache;
}

export interface CreateRunResult {
  run: RunRow;
  /** True when an existing run was returned (same idempotency key, or coalesced). */
  deduplicated: boolean;
  reason?: "idempotency_key" | "coalesced";
}

/**
 * The one way a run comes into existence (manual, API, triggers, reruns, children): pins the
 * version, checks the input against the definition's `inputs`, applies idempotency and the
 * overflow policy, and queues it — admission starts it at once if a slot is free. Must run in a
 * transaction (`tx`), so the run, its events and its start message commit together.
 */
export async function createRun(
  tx: Queryable,
  ctx: ServiceContext,
  args: CreateRunArgs,
): Promise<CreateRunResult> {
  if (!args.idempotencyKey) return insertRun(tx, ctx, args);
  if (!args.batchCache) {
    const existing = await findByKey(tx, args.workspaceId, args.workflowId, args.idempotencyKey);
    if (existing) return replay(tx, args, existing);
    return insertRun(tx, ctx, args);
  }
  // A batch looks the key up only when the run is refused: a repeated key is still answered with
  // its run, as the lookup first would have (the insert's unique index catches the other case).
  try {
    return await insertRun(tx, ctx, args);
  } catch (e) {
    if (!(e instanceof DomainError)) throw e;
    const existing = await findByKey(tx, args.workspaceId, args.workflowId, args.idempotencyKey);
    if (existing) return replay(tx, args, existing);
    throw e;
  }
}

async function insertRun(
  tx: Queryable,
  ctx: ServiceContext,
  args: CreateRunArgs,
): Promise<CreateRunResult> {
  const now = ctx.now();
  const isTest = !!args.test || (args.parent ? await isTestRun(tx, args.parent.runId) : false);
  const cache = args.batchCache;
  const version =
    cache && args.workflowId !== null && !args.test
      ? await cache.pin(
          `${args.workflowId}\u0000${args.versionId ?? ""}\u0000${!!args.allowDisabled}`,
          () => pinVersion(tx, args),
        )
      : await pinVersion(tx, args);
  const definition = await definitionByHash(tx, args.workspaceId, version.hash);
  const input = resolveRunInput(definition.inputs, args.input);
  if (!input.ok) {
    throw new ValidationError(
      `The run input is invalid: ${input.issues[0]?.message ?? "unknown problem"}`,
      input.issues.map((i) => ({
        path: i.name ? ["input", i.name] : ["input"],
        message: i.message,
      })),
    );
  }

  const runLimits = storedRunLimits(args.limits);
  if (runLimits && !args.limitsInherited)
    await checkRunLimits(tx, ctx, args.workspaceId, definition, runLimits);
  const repository = args.repositoryPin ?? runRepository(definition, args);

  const overflow = definition.constraints.overflow;
  // Inline runs share no workflow, so there is no queue of "the same workflow" to coalesce into.
  if (!args.parent && overflow === "coalesce" && version.workflowId && !isTest) {
    const [queued] = await tx
      .select()
      .from(runs)
      .where(
        and(
          eq(runs.workspaceId, args.workspaceId),
          eq(runs.workflowId, version.workflowId),
          eq(runs.status, "queued"),
        ),
      )
      .orderBy(desc(runs.queuedAt))
      .limit(1);
    if (queued) return { run: queued, deduplicated: true, reason: "coalesced" };
  }

  // A recording runs at once or not at all: it never waits in the queue for a slot.
  if (args.recording) {
    const limits = await admissionLimits(tx, args.workspaceId, ctx.config);
    const refusal = await slotRefusal(tx, args.workspaceId, limits, args.accountableUserId ?? null);
    if (refusal) throw new PreconditionFailedError(refusal);
  }
  const id = args.runId ?? newId("run");
  const admitNow = !args.recording && !args.deferAdmission;
  const candidate = {
    id,
    workflowId: version.workflowId,
    hash: version.hash,
    user: args.accountableUserId ?? null,
    rootRunId: args.parent?.rootRunId ?? null,
  };
  // Without a key, admission decides before the insert (the run is its candidate, the newest in
  // the queue), so an admitted run is inserted running; the workspace's lock is held from here to
  // the commit. A keyed run is inserted first, as queued: its unique check may wait for another
  // transaction that touches a run with the same key (a finish updating it) and then takes this
  // lock — waiting while holding the lock would deadlock.
  let plan =
    admitNow && !args.idempotencyKey
      ? await planAdmission(tx, args.workspaceId, ctx.config, candidate)
      : undefined;
  const running = !!args.recording || !!plan?.candidateAdmitted;
  const row = {
    id,
    workspaceId: args.workspaceId,
    workflowId: version.workflowId,
    versionId: version.id,
    version: version.version,
    hash: version.hash,
    status: running ? ("running" as const) : ("queued" as const),
    startedAt: args.recording ? now : null,
    // A recording is not planned by the engine, which sets other runs' deadline: the reaper ends an
    // abandoned one after the run timeout, freeing its admission slot.
    deadlineAt: args.recording ? new Date(now.getTime() + definition.constraints.timeoutMs) : null,
    triggerType: args.trigger.type,
    triggerId: args.trigger.id ?? null,
    triggerPayload: args.trigger.payload ?? null,
    input: input.value,
    initiatorType: args.initiator.type,
    initiatorId: args.initiator.id ?? null,
    accountableUserId: args.accountableUserId ?? null,
    idempotencyKey: args.idempotencyKey ?? null,
    parentRunId: args.parent?.runId ?? null,
    parentStepId: args.parent?.stepId ?? null,
    rootRunId: args.parent?.rootRunId ?? id,
    rerunOfRunId: args.rerun?.ofRunId ?? null,
    rerunFromStepId: args.rerun?.fromStepId ?? null,
    rerunSeed: args.rerun?.seed ?? args.test?.seed ?? null,
    isTest,
    limits: runLimits,
    ...repository,
    createdAt: now,
    queuedAt: now,
    updatedAt: now,
  };
  let inserted: RunRow;
  if (!args.idempotencyKey)
    [inserted] = (await tx.insert(runs).values(row).returning()) as [RunRow];
  else
    try {
      // A savepoint, so a concurrent duplicate key can be answered with the winner's run (nothing
      // but the admission lock and reads happened before it).
      [inserted] = (await tx.transaction((sp) => sp.insert(runs).values(row).returning())) as [
        RunRow,
      ];
    } catch (e) {
      if (
        isUniqueViolation(e, "runs_idempotency_key") ||
        isUniqueViolation(e, "runs_inline_idempotency_key")
      ) {
        const existing = await findByKey(
          tx,
          args.workspaceId,
          args.workflowId,
          args.idempotencyKey,
        );
        if (existing) return replay(tx, args, existing);
      }
      throw e;
    }
  if (admitNow && !plan)
    plan = await planAdmission(tx, args.workspaceId, ctx.config, { ...candidate, inserted: true });
  // Runs per month (quota): counted with the run, in its transaction — children too; test runs not.
  if (!isTest)
    await chargeRun(
      tx,
      ctx.config,
      args.workspaceId,
      now,
      plan?.settings ?? (await cache?.workspaceSettings(tx, args.workspaceId)),
    );
  // One creation event: `admitted` says whether it started at once (no separate run.admitted).
  const created = {
    runId: id,
    workspaceId: args.workspaceId,
    type: "run.queued",
    data: {
      trigger: args.trigger.type,
      version: version.version,
      ...(plan ? { admitted: plan.candidateAdmitted } : {}),
    },
  };
  if (!plan) await appendRunEvents(tx, [created], now);
  else {
    await applyAdmission(tx, plan, now, {
      candidateId: id,
      creationEvents: [created],
      candidateStartsItself: !!args.parent?.startsItself,
    });
    if (plan.candidateAdmitted) inserted = { ...inserted, status: "running", updatedAt: now };
    if (!plan.candidateAdmitted && overflow === "skip") {
      const skipped = await skipOverflowedRun(
        tx,
        { runId: id, workspaceId: args.workspaceId, definition },
        now,
      );
      if (skipped) return { run: skipped, deduplicated: false };
    }
  }
  return { run: inserted, deduplicated: false };
}

/**
 * The version a new run pins: the named or current version of its workflow (enabled unless the
 * caller allows otherwise), or for an inline run its stored snapshot with no workflow or version.
 */
async function pinVersion(
  tx: Queryable,
  args: CreateRunArgs,
): Promise<{ workflowId: string | null; id: string | null; version: string; hash: string }> {
  if (args.workflowId === null) {
    if (!args.inlineHash) throw new Error("createRun: an inline run needs its definition hash");
    return { workflowId: null, id: null, version: INLINE_VERSION, hash: args.inlineHash };
  }
  // A test run executes its workflow's draft (no version; disabled workflows may be tested).
  if (args.test) {
    if (!args.inlineHash) throw new Error("createRun: a test run needs its draft's hash");
    await loadWorkflow(tx, args.workspaceId, args.workflowId);
    return { workflowId: args.workflowId, id: null, version: TEST_VERSION, hash: args.inlineHash };
  }
  const wf = await loadWorkflow(tx, args.workspaceId, args.workflowId);
  if (!wf.isEnabled && !args.allowDisabled)
    throw new PreconditionFailedError(`Workflow "${wf.name}" is disabled; enable it to start runs`);
  const versionId = args.versionId ?? wf.currentVersionId;
  if (!versionId)
    throw new PreconditionFailedError(
      `Workflow "${wf.name}" has no published version yet; publish it first`,
    );
  const version: VersionRow = await loadVersion(tx, args.workspaceId, wf.id, versionId);
  return { workflowId: wf.id, id: version.id, version: version.version, hash: version.hash };
}

/** Refuses limits that would loosen the definition's constraints or the workspace's quota. */
async function checkRunLimits(
  tx: Queryable,
  ctx: ServiceContext,
  workspaceId: string,
  definition: WorkflowDefinition,
  limits: RunLimits,
) {
  const c = definition.constraints;
  const quota =
    limits.maxSteps === undefined ? null : await loadWorkspaceQuota(tx, workspaceId, ctx.config);
  const issues = runLimitIssues(limits, {
    timeoutMs: c.timeoutMs,
    maxSteps: tighterCap(c.maxSteps, quota?.limits.stepsPerRun)!,
    maxParallel: c.maxParallel,
  });
  if (issues.length) throw new ValidationError(issues.map((i) => i.message).join("; "), issues);
}

async function isTestRun(tx: Queryable, runId: string): Promise<boolean> {
  const [row] = await tx.select({ isTest: runs.isTest }).from(runs).where(eq(runs.id, runId));
  return !!row?.isTest;
}
