import "server-only";
import { and, asc, eq, ne, sql, type SQL } from "drizzle-orm";
import { execRows, type Queryable } from "@/db/client";
import { runs } from "@/db/schema";
import { EVENTS } from "@/inngest/events";
import { sendInngestMessages } from "../outbox/enqueue-outbox";
import { appendRunEvents, type RunEventInput } from "./run-events";
import { tighterCap } from "@/lib/quotas/plans";
import { transitionRun } from "../run-state/transition";
import {
  ACTIVE_STATUSES,
  limitsFromSettings,
  lockWorkspaceAdmission,
  type AdmissionConfig,
  type AdmissionLimits,
} from "./admission-limits";

/**
 * A run being created in this transaction: not inserted yet (admission decides its status), or
 * already `inserted` as queued (then it is flipped to running like any queued run).
 */
export interface AdmissionCandidate {
  id: string;
  workflowId: string | null;
  hash: string;
  user: string | null;
  inserted?: boolean;
  /** A child run (subworkflow, workflow loop, agent tool): the root run of its tree. */
  rootRunId?: string | null;
}

interface QueuedRun {
  id: string;
  workflowId: string | null;
  hash: string;
  user: string | null;
  /** Set for a child run only. */
  rootRunId?: string | null;
}

/**
 * What admission decided: the queued runs to start, whether the candidate starts, and the
 * workspace's raw settings (read in the same statement, for callers that need them too).
 */
export interface AdmissionPlan {
  workspaceId: string;
  admit: string[];
  candidateAdmitted: boolean;
  settings: unknown;
}

/**
 * Decides admission under the workspace's lock (SPEC §5), writing nothing: FIFO over the queued
 * runs, then `candidate` (a run about to be inserted, newest in the queue), while slots are free —
 * at most `perUser` active runs per accountable user, `perWorkspace` per workspace, and each
 * workflow's `maxConcurrentRuns` (capped by the plan's concurrent-runs-per-workflow quota). A
 * queued run whose limit is full waits and does not block runs behind it.
 *
 * Child runs (docs/runs.md "Child runs and admission"): a run tree holds one workspace/user slot,
 * its root's, so children neither take nor wait for one (parents waiting on children queued for
 * slots their own trees hold would wait forever). They count towards, and wait for, their
 * workflow's limit like any run — except that runs of their own tree never count against them,
 * so a tree never queues behind itself (A → A under maxConcurrentRuns 1 proceeds).
 *
 * Two statements when nothing is queued (the lock; settings, active counts, whether anything is
 * queued, the candidate's workflow limit — one read), a third to read the queue otherwise. Every
 * transaction that queues a run or frees a slot runs this before it commits, under the same lock,
 * so a queued run can only be missed by a pass whose snapshot predates it — and then its own
 * creator's pass, or the finish that frees the next slot, comes after and sees it.
 */
export async function planAdmission(
  tx: Queryable,
  workspaceId: string,
  limitsOrConfig: AdmissionLimits | AdmissionConfig,
  candidate?: AdmissionCandidate,
): Promise<AdmissionPlan> {
  await lockWorkspaceAdmission(tx, workspaceId);
  const [snap] = await execRows<{
    settings: unknown;
    active: [string | null, string, string | null, number, number][] | null;
    has_queued: boolean;
    has_queued_child: boolean;
    candidate_max: number | null;
  }>(
    tx,
    sql`select
      (select settings from workspaces where id = ${workspaceId}) as settings,
      (select json_agg(json_build_array(workflow_id, hash, accountable_user_id, n, c)) from (
        select workflow_id, hash, accountable_user_id,
          count(*) filter (where parent_run_id is null)::int as n,
          count(*) filter (where parent_run_id is not null)::int as c from runs
        where workspace_id = ${workspaceId}
          and status in (${activeList()})
        group by workflow_id, hash, accountable_user_id) a) as active,
      exists (select 1 from runs where workspace_id = ${workspaceId} and status = 'queued'
        and id <> ${candidate?.id ?? ""}) as has_queued,
      exists (select 1 from runs where workspace_id = ${workspaceId} and status = 'queued'
        and parent_run_id is not null and id <> ${candidate?.id ?? ""}) as has_queued_child,
      ${candidate?.workflowId ? sql`(${currentMaxConcurrentRuns(sql`w.id = ${candidate.workflowId}`)})` : sql`null::int`} as candidate_max`,
  );
  const limits =
    "perWorkspace" in limitsOrConfig
      ? limitsOrConfig
      : limitsFromSettings(snap?.settings, limitsOrConfig);
  const plan: AdmissionPlan = {
    workspaceId,
    admit: [],
    candidateAdmitted: false,
    settings: snap?.settings,
  };
  let total = 0;
  const perUser = new Map<string, number>();
  const perWorkflow = new Map<string, number>();
  for (const [workflowId, hash, user, n, children] of snap?.active ?? []) {
    // Workspace and user slots: top-level runs only (a tree holds its root's slot).
    total += n;
    if (user) perUser.set(user, (perUser.get(user) ?? 0) + n);
    const key = concurrencyKey({ workflowId, hash });
    perWorkflow.set(key, (perWorkflow.get(key) ?? 0) + n + children);
  }
  const childWaiting = !!candidate?.rootRunId || !!snap?.has_queued_child;
  // Saturated (the common case under a burst): nothing can start, so the queue is not read —
  // unless a child waits, which needs no workspace slot.
  if (total >= limits.perWorkspace && !childWaiting) return plan;
  let queued: QueuedRun[] = [];
  let maxByWorkflow = new Map<string, number>();
  if (snap?.has_queued) {
    queued = await tx
      .select({
        id: runs.id,
        workflowId: runs.workflowId,
        hash: runs.hash,
        user: runs.accountableUserId,
        rootRunId: sql<
          string | null
        >`case when ${runs.parentRunId} is null then null else ${runs.rootRunId} end`,
      })
      .from(runs)
      .where(
        and(
          eq(runs.workspaceId, workspaceId),
          eq(runs.status, "queued"),
          ne(runs.id, candidate?.id ?? ""),
        ),
      )
      .orderBy(asc(runs.queuedAt), asc(runs.id))
      .limit(QUEUE_READ);
    maxByWorkflow = await workflowLimits(
      tx,
      queued.flatMap((q) => (q.workflowId ? [q.workflowId] : [])),
    );
  }
  if (candidate?.workflowId && snap?.candidate_max != null)
    maxByWorkflow.set(candidate.workflowId, Number(snap.candidate_max));
  // The candidate is the newest queued run; behind a full read it would not have been reached.
  const line = candidate && queued.length < QUEUE_READ ? [...queued, candidate] : queued;
  const inTree = childWaiting
    ? await activeByTree(tx, workspaceId, line)
    : new Map<string, number>();
  for (const q of line) {
    const child = !!q.rootRunId;
    if (!child) {
      if (total >= limits.perWorkspace) {
        if (childWaiting) continue;
        break;
      }
      if (q.user && (perUser.get(q.user) ?? 0) >= limits.perUser) continue;
    }
    const key = concurrencyKey(q);
    const treeKey = `${q.rootRunId}\u0000${key}`;
    // An inline run has no workflow whose maxConcurrentRuns could apply across runs; only the
    // plan's per-definition cap does, counted per definition hash.
    const ownMax = q.workflowId ? maxByWorkflow.get(q.workflowId) : undefined;
    const wfMax = tighterCap(ownMax, limits.perWorkflow) ?? Number.POSITIVE_INFINITY;
    const ownTree = child ? (inTree.get(treeKey) ?? 0) : 0;
    if ((perWorkflow.get(key) ?? 0) - ownTree >= wfMax) continue;
    if (!child) {
      total++;
      if (q.user) perUser.set(q.user, (perUser.get(q.user) ?? 0) + 1);
    } else inTree.set(treeKey, ownTree + 1);
    perWorkflow.set(key, (perWorkflow.get(key) ?? 0) + 1);
    if (q === candidate) plan.candidateAdmitted = true;
    if (q !== candidate || candidate.inserted) plan.admit.push(q.id);
  }
  return plan;
}

/**
 * Carries out a plan: queued → running (compare-and-set), the start message of every run that
 * starts (the candidate included, inserted running or flipped here) and their events.
 * `creationEvents` (the candidate's `run.queued`) go into the same insert; a candidate admitted at
 * creation gets no separate `run.admitted` — it never waited. Returns the started ids. A queued
 * run cancelled between plan and update is skipped; its slot stays free until the next pass (a
 * finish, or the reaper's minute).
 */
export async function applyAdmission(
  tx: Queryable,
  plan: AdmissionPlan,
  now: Date,
  opts: {
    candidateId?: string;
    creationEvents?: RunEventInput[];
    /** The candidate is a child its parent starts itself (a durable invoke): no start message. */
    candidateStartsItself?: boolean;
  } = {},
): Promise<string[]> {
  const { workspaceId } = plan;
  const admitted: string[] = [];
  if (plan.admit.length) {
    const { rows: done } = await transitionRun(tx, {
      id: plan.admit,
      to: "running",
      from: ["queued"],
      set: { updatedAt: now },
    });
    const flipped = new Set(done.map((d) => d.id));
    // FIFO order, as decided.
    admitted.push(...plan.admit.filter((id) => flipped.has(id)));
  }
  const candidate = plan.candidateAdmitted ? opts.candidateId : undefined;
  const started = candidate && !admitted.includes(candidate) ? [...admitted, candidate] : admitted;
  const messages = opts.candidateStartsItself
    ? started.filter((runId) => runId !== opts.candidateId)
    : started;
  if (messages.length)
    await sendInngestMessages(
      tx,
      messages.map((runId) => ({
        workspaceId,
        topic: "inngest" as const,
        name: EVENTS.runStart,
        payload: { runId, workspaceId },
        id: `start_${runId}`,
      })),
      now,
    );
  await appendRunEvents(
    tx,
    [
      ...(opts.creationEvents ?? []),
      ...admitted
        .filter((runId) => runId !== opts.candidateId)
        .map((runId) => ({ runId, workspaceId, type: "run.admitted", data: {} })),
    ],
    now,
  );
  return started;
}

/**
 * Starts queued runs of a workspace while slots are free (see planAdmission). Call inside a
 * transaction; returns the admitted run ids. Given the config instead of limits, it reads the
 * workspace's overrides in its own snapshot statement.
 */
export async function admitQueuedRuns(
  tx: Queryable,
  workspaceId: string,
  limits: AdmissionLimits | AdmissionConfig,
  now: Date,
): Promise<string[]> {
  const plan = await planAdmission(tx, workspaceId, limits);
  if (plan.admit.length === 0) return [];
  return applyAdmission(tx, plan, now);
}

const QUEUE_READ = 500;

function activeList(): SQL {
  return sql.join(
    ACTIVE_STATUSES.map((st) => sql`${st}`),
    sql`, `,
  );
}

/**
 * Active runs per (tree, workflow) for the trees of the children in `line`: what a child's own
 * tree holds of its workflow's limit, which never counts against it.
 */
async function activeByTree(
  tx: Queryable,
  workspaceId: string,
  line: readonly QueuedRun[],
): Promise<Map<string, number>> {
  const roots = [...new Set(line.flatMap((q) => (q.rootRunId ? [q.rootRunId] : [])))];
  if (roots.length === 0) return new Map();
  const rows = await execRows<{
    root: string;
    workflow_id: string | null;
    hash: string;
    n: number;
  }>(
    tx,
    sql`select root_run_id as root, workflow_id, hash, count(*)::int as n from runs
      where workspace_id = ${workspaceId} and status in (${activeList()})
        and root_run_id in (${sql.join(
          roots.map((r) => sql`${r}`),
          sql`, `,
        )})
      group by root_run_id, workflow_id, hash`,
  );
  return new Map(
    rows.map((r) => [
      `${r.root}\u0000${concurrencyKey({ workflowId: r.workflow_id, hash: r.hash })}`,
      Number(r.n),
    ]),
  );
}

/** What the per-workflow limit counts by: the workflow, or an inline run's definition hash. */
function concurrencyKey(r: { workflowId: string | null; hash: string }): string {
  return r.workflowId ?? `inline:${r.hash}`;
}

/** maxConcurrentRuns of each workflow's CURRENT version: it applies to every queued run of it. */
function currentMaxConcurrentRuns(where: SQL, id = sql``): SQL {
  return sql`select ${id}coalesce((c.definition->'constraints'->>'maxConcurrentRuns')::int, 10) as max
    from workflows w
    left join workflow_versions v on v.id = w.current_version_id
    left join definition_contents c on c.workspace_id = w.workspace_id and c.hash = v.hash
    where ${where}`;
}

async function workflowLimits(tx: Queryable, workflowIds: string[]): Promise<Map<string, number>> {
  const ids = [...new Set(workflowIds)];
  if (ids.length === 0) return new Map();
  const list = await execRows<{ workflow_id: string; max: number }>(
    tx,
    currentMaxConcurrentRuns(
      sql`w.id in (${sql.join(
        ids.map((i) => sql`${i}`),
        sql`, `,
      )})`,
      sql`w.id as workflow_id, `,
    ),
  );
  return new Map(list.map((r) => [r.workflow_id, Number(r.max)]));
}
