/**
 * State of the embedded Inngest-compatible executor (inngest/executor). Every table is prefixed
 * `executor_` and belongs to that subsystem alone: the app reads runs through its admin API.
 * Times that drive scheduling (`run_at`, `expires_at`, …) come from the executor's clock so tests
 * can move time; lease times come from the database clock (`now()`), which is real time.
 */
import {
  bigint,
  bigserial,
  boolean,
  index,
  integer,
  jsonb,
  pgTable,
  primaryKey,
  text,
  uniqueIndex,
} from "drizzle-orm/pg-core";
import { sql } from "drizzle-orm";
import { createdAt, tstz } from "./common";

export const EXECUTOR_FUNCTION_STATUSES = ["active", "invalid", "removed"] as const;
export const EXECUTOR_EXECUTION_STATUSES = [
  "queued",
  "running",
  "completed",
  "failed",
  "cancelled",
] as const;
export const EXECUTOR_JOB_KINDS = ["call", "wake", "pause_timeout", "run_timeout"] as const;
export const EXECUTOR_PAUSE_KINDS = ["wait", "invoke"] as const;
export const EXECUTOR_PAUSE_STATUSES = ["pending", "resolved", "expired", "cancelled"] as const;

export type ExecutorFunctionStatus = (typeof EXECUTOR_FUNCTION_STATUSES)[number];
export type ExecutorExecutionStatus = (typeof EXECUTOR_EXECUTION_STATUSES)[number];
export type ExecutorJobKind = (typeof EXECUTOR_JOB_KINDS)[number];
export type ExecutorPauseKind = (typeof EXECUTOR_PAUSE_KINDS)[number];
export type ExecutorPauseStatus = (typeof EXECUTOR_PAUSE_STATUSES)[number];

/** Steps a run has planned or scheduled but not finished, keyed by hashed step id. */
export type ExecutorPendingSteps = Record<
  string,
  {
    op: string;
    name?: string;
    race?: boolean;
    /** parallelism "inngest": coalesce key */ ck?: string;
  }
>;

/** An app whose functions the executor serves (one per `serve()` endpoint). */
export const executorApps = pgTable("executor_apps", {
  id: text("id").primaryKey(),
  /** The serve URL the executor syncs and calls. */
  url: text("url").notNull(),
  sdk: text("sdk"),
  framework: text("framework"),
  syncedAt: tstz("synced_at"),
  createdAt: createdAt(),
});

export const executorFunctions = pgTable(
  "executor_functions",
  {
    /** Composite id `<appId>-<fnId>`, as the SDK reports it. */
    id: text("id").primaryKey(),
    appId: text("app_id")
      .notNull()
      .references(() => executorApps.id),
    name: text("name"),
    /** The function config exactly as the SDK sent it at sync. */
    config: jsonb("config").$type<Record<string, unknown>>().notNull(),
    status: text("status", { enum: EXECUTOR_FUNCTION_STATUSES }).notNull(),
    /** Why the function is invalid (unsupported options), one message per problem. */
    errors: jsonb("errors").$type<string[]>().notNull().default([]),
    /** First sync: cron ticks before it never fire. */
    createdAt: createdAt(),
    updatedAt: tstz("updated_at").notNull().defaultNow(),
  },
  (t) => [
    index("executor_functions_app_idx").on(t.appId),
    index("executor_functions_status_idx").on(t.status),
  ],
);

/** Every accepted event, as delivered to functions. Append-only. */
export const executorEvents = pgTable(
  "executor_events",
  {
    /** ULID the event API returned to the sender. */
    id: text("id").primaryKey(),
    name: text("name").notNull(),
    /** `{ id, name, data, ts, user?, v? }` — the object functions receive as `event`. */
    payload: jsonb("payload").$type<Record<string, unknown>>().notNull(),
    /** The sender's own id (deduplicates for 24 h), when one was given. */
    externalId: text("external_id"),
    /** Set when a user-supplied id was seen within 24 h: the event was stored but not delivered. */
    duplicateOf: text("duplicate_of"),
    receivedAt: tstz("received_at").notNull(),
  },
  (t) => [
    index("executor_events_name_idx").on(t.name, t.receivedAt),
    index("executor_events_received_idx").on(t.receivedAt),
    index("executor_events_external_idx").on(t.externalId),
  ],
);

/** Claim of a user-supplied event id; a later event with the same id inside 24 h is not delivered. */
export const executorEventIds = pgTable(
  "executor_event_ids",
  {
    externalId: text("external_id").primaryKey(),
    eventId: text("event_id").notNull(),
    expiresAt: tstz("expires_at").notNull(),
  },
  (t) => [index("executor_event_ids_expires_idx").on(t.expiresAt)],
);

// One Inngest function run: an "execution" in TS so it never reads as a Sluice run; the SQL name
// stays executor_runs (renaming the table needs a migration and changes no behaviour).
export const executorExecutions = pgTable(
  "executor_runs",
  {
    id: text("id").primaryKey(),
    functionId: text("function_id")
      .notNull()
      .references(() => executorFunctions.id),
    status: text("status", { enum: EXECUTOR_EXECUTION_STATUSES }).notNull(),
    /** The triggering event (first of the batch) and the whole batch, as sent to the SDK. */
    event: jsonb("event").$type<Record<string, unknown>>().notNull(),
    events: jsonb("events").$type<Record<string, unknown>[]>().notNull(),
    eventId: text("event_id"),
    output: jsonb("output"),
    error: jsonb("error").$type<Record<string, unknown>>(),
    pending: jsonb("pending").$type<ExecutorPendingSteps>().notNull().default({}),
    /**
     * Executor option `parallelism: "inngest"` only: Inngest's pending-steps set (replaced by each
     * response that plans several steps, an id removed when its result is saved) and its
     * ForceStepPlan flag (sent as `disable_immediate_execution`).
     */
    inngestPending: text("inngest_pending")
      .array()
      .notNull()
      .default(sql`'{}'::text[]`),
    forceStepPlan: boolean("force_step_plan").notNull().default(false),
    /** Memoised steps so far (a run fails beyond the executor's step limit). */
    stepCount: integer("step_count").notNull().default(0),
    /** Concurrency groups this run's calls count against (`scope:fn:key`) and their limits. */
    concurrencyKeys: text("concurrency_keys")
      .array()
      .notNull()
      .default(sql`'{}'::text[]`),
    concurrencyLimits: integer("concurrency_limits")
      .array()
      .notNull()
      .default(sql`'{}'::int[]`),
    /** Invoke linkage: the parent run and the step waiting for this run. */
    parentRunId: text("parent_run_id"),
    parentStepId: text("parent_step_id"),
    idempotencyKey: text("idempotency_key"),
    /** Cron tick time (ms) for scheduled runs. */
    cronTick: bigint("cron_tick", { mode: "number" }),
    createdAt: createdAt(),
    startedAt: tstz("started_at"),
    endedAt: tstz("ended_at"),
  },
  (t) => [
    index("executor_runs_status_idx").on(t.status, t.createdAt),
    index("executor_runs_function_idx").on(t.functionId, t.status, t.createdAt),
    index("executor_runs_event_idx").on(t.eventId),
    index("executor_runs_parent_idx").on(t.parentRunId),
  ],
);

/**
 * Memoised step results: written exactly once per (run, step) and never changed. `seq` is the
 * completion order, which is the stack the SDK replays (it decides `Promise.race`).
 */
export const executorSteps = pgTable(
  "executor_steps",
  {
    runId: text("run_id")
      .notNull()
      .references(() => executorExecutions.id, { onDelete: "cascade" }),
    stepId: text("step_id").notNull(),
    seq: bigserial("seq", { mode: "number" }).notNull(),
    name: text("name"),
    op: text("op").notNull(),
    /** The memo exactly as sent back to the SDK: `{data}`, `{error}`, an event, or null. */
    output: jsonb("output"),
    createdAt: createdAt(),
  },
  (t) => [
    primaryKey({ columns: [t.runId, t.stepId] }),
    index("executor_steps_run_seq_idx").on(t.runId, t.seq),
  ],
);

/** Append-only history of a run: each SDK call outcome, retry, wait, wake and error. */
export const executorHistory = pgTable(
  "executor_history",
  {
    id: bigserial("id", { mode: "number" }).primaryKey(),
    runId: text("run_id")
      .notNull()
      .references(() => executorExecutions.id, { onDelete: "cascade" }),
    stepId: text("step_id"),
    stepName: text("step_name"),
    /** e.g. step.completed, step.errored, step.failed, step.planned, sleep.scheduled, run.retry … */
    type: text("type").notNull(),
    attempt: integer("attempt").notNull().default(0),
    error: jsonb("error").$type<Record<string, unknown>>(),
    data: jsonb("data").$type<Record<string, unknown>>(),
    startedAt: tstz("started_at"),
    durationMs: integer("duration_ms"),
    createdAt: createdAt(),
  },
  (t) => [index("executor_history_run_idx").on(t.runId, t.id)],
);

/**
 * The durable queue. A worker leases a due job (`FOR UPDATE SKIP LOCKED`), does the work outside
 * any transaction, then deletes the job in the transaction that records the result, fenced by its
 * lease token. A crashed worker's lease expires and another worker retries the job.
 */
export const executorJobs = pgTable(
  "executor_jobs",
  {
    id: bigserial("id", { mode: "number" }).primaryKey(),
    runId: text("run_id")
      .notNull()
      .references(() => executorExecutions.id, { onDelete: "cascade" }),
    kind: text("kind", { enum: EXECUTOR_JOB_KINDS }).notNull(),
    /** For `call`: the targeted step (null = discovery). For `wake`: the sleeping step. */
    stepId: text("step_id"),
    attempt: integer("attempt").notNull().default(0),
    runAt: tstz("run_at").notNull(),
    leaseToken: text("lease_token"),
    leaseUntil: tstz("lease_until"),
    /**
     * Parallelism "inngest": the job's identity (Inngest's queue job id, e.g. `plan:<step>`); such
     * discoveries escape the one-discovery-per-run index, deduplicated by `executor_job_keys`.
     */
    jobKey: text("job_key"),
    /** How many times a worker leased this job (> 1 means an earlier lease was lost). */
    claims: integer("claims").notNull().default(0),
    payload: jsonb("payload").$type<Record<string, unknown>>().notNull().default({}),
    concurrencyKeys: text("concurrency_keys")
      .array()
      .notNull()
      .default(sql`'{}'::text[]`),
    concurrencyLimits: integer("concurrency_limits")
      .array()
      .notNull()
      .default(sql`'{}'::int[]`),
    createdAt: createdAt(),
  },
  (t) => [
    index("executor_jobs_due_idx").on(t.runAt, t.id),
    index("executor_jobs_run_idx").on(t.runId),
    index("executor_jobs_lease_idx").on(t.leaseUntil),
    // One discovery at a time per run (unless keyed: parallelism "inngest"), and one queued call
    // per targeted step.
    uniqueIndex("executor_jobs_discovery_key")
      .on(t.runId)
      .where(sql`kind = 'call' and step_id is null and job_key is null`),
    uniqueIndex("executor_jobs_step_key")
      .on(t.runId, t.stepId)
      .where(sql`kind in ('call', 'wake') and step_id is not null`),
  ],
);

/**
 * Job identities a run has enqueued (parallelism "inngest"), remembered for the run's lifetime as
 * Inngest remembers queue job ids: a second enqueue with a known key is a no-op.
 */
export const executorJobKeys = pgTable(
  "executor_job_keys",
  {
    runId: text("run_id")
      .notNull()
      .references(() => executorExecutions.id, { onDelete: "cascade" }),
    key: text("key").notNull(),
    createdAt: createdAt(),
  },
  (t) => [primaryKey({ columns: [t.runId, t.key] })],
);

/** A run waiting for an event (`step.waitForEvent`) or for an invoked run to finish. */
export const executorPauses = pgTable(
  "executor_pauses",
  {
    id: text("id").primaryKey(),
    runId: text("run_id")
      .notNull()
      .references(() => executorExecutions.id, { onDelete: "cascade" }),
    stepId: text("step_id").notNull(),
    stepName: text("step_name"),
    kind: text("kind", { enum: EXECUTOR_PAUSE_KINDS }).notNull(),
    /** For waits: the awaited event name. */
    eventName: text("event_name"),
    /** For waits: the CEL condition (`event` = the run's trigger, `async` = the candidate). */
    expression: text("expression"),
    /** For invokes: the child run. */
    childRunId: text("child_run_id"),
    status: text("status", { enum: EXECUTOR_PAUSE_STATUSES }).notNull(),
    expiresAt: tstz("expires_at"),
    resolvedEventId: text("resolved_event_id"),
    createdAt: createdAt(),
    resolvedAt: tstz("resolved_at"),
  },
  (t) => [
    index("executor_pauses_event_idx").on(t.eventName, t.status),
    index("executor_pauses_run_idx").on(t.runId),
    index("executor_pauses_child_idx").on(t.childRunId),
  ],
);

/** Each cron tick is claimed once, so several executors on one database fire it once. */
export const executorCronClaims = pgTable(
  "executor_cron_claims",
  {
    functionId: text("function_id").notNull(),
    cron: text("cron").notNull(),
    tickAt: tstz("tick_at").notNull(),
    runId: text("run_id"),
    createdAt: createdAt(),
  },
  (t) => [
    primaryKey({ columns: [t.functionId, t.cron, t.tickAt] }),
    index("executor_cron_claims_tick_idx").on(t.tickAt),
  ],
);

/** `idempotency` keys: one run per (function, key) within 24 h. */
export const executorIdempotency = pgTable(
  "executor_idempotency",
  {
    functionId: text("function_id").notNull(),
    key: text("key").notNull(),
    runId: text("run_id").notNull(),
    expiresAt: tstz("expires_at").notNull(),
  },
  (t) => [
    primaryKey({ columns: [t.functionId, t.key] }),
    index("executor_idempotency_expires_idx").on(t.expiresAt),
  ],
);
