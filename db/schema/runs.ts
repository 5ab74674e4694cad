import type { RunLimits } from "@/lib/workflow/run-limits";
import { sql } from "drizzle-orm";
import {
  bigserial,
  boolean,
  index,
  integer,
  jsonb,
  pgEnum,
  pgTable,
  text,
  uniqueIndex,
} from "drizzle-orm/pg-core";
import { FAILURE_CLASSES, RUN_STATUSES, STEP_STATUSES } from "../../lib/workflow/status";
import { APPROVAL_STATUSES, INITIATOR_TYPES, TRIGGER_TYPES } from "../../lib/schemas/runs";
import { createdAt, tstz } from "./common";
import { workflows, workflowVersions } from "./workflows";
import { workspaces } from "./workspaces";

export const runStatusEnum = pgEnum("run_status", RUN_STATUSES);
export const stepStatusEnum = pgEnum("step_status", STEP_STATUSES);
export const failureClassEnum = pgEnum("failure_class", FAILURE_CLASSES);
export const triggerTypeEnum = pgEnum("trigger_type", TRIGGER_TYPES);
export const initiatorTypeEnum = pgEnum("initiator_type", INITIATOR_TYPES);
export const approvalStatusEnum = pgEnum("approval_status", APPROVAL_STATUSES);

/**
 * One execution of a pinned workflow version. The snapshot is the content-addressed definition
 * (definition_contents by hash), kept for as long as the run exists.
 */
export const runs = pgTable(
  "runs",
  {
    id: text("id").primaryKey(),
    workspaceId: text("workspace_id")
      .notNull()
      .references(() => workspaces.id, { onDelete: "cascade" }),
    /** Null for an inline run (an unsaved definition, snapshotted by `hash` alone). */
    workflowId: text("workflow_id").references(() => workflows.id, { onDelete: "cascade" }),
    versionId: text("version_id").references(() => workflowVersions.id),
    version: text("version").notNull(),
    hash: text("hash").notNull(),
    status: runStatusEnum("status").notNull(),
    triggerType: triggerTypeEnum("trigger_type").notNull(),
    triggerId: text("trigger_id"),
    /** The immutable payload that started the run (webhook body, event, schedule tick, form). */
    triggerPayload: jsonb("trigger_payload").$type<unknown>(),
    input: jsonb("input").$type<Record<string, unknown>>().notNull().default({}),
    output: jsonb("output").$type<unknown>(),
    error: jsonb("error").$type<Record<string, unknown>>(),
    /** Per-run overrides that tighten the definition's constraints (null: none); reruns inherit. */
    limits: jsonb("limits").$type<RunLimits>(),
    initiatorType: initiatorTypeEnum("initiator_type").notNull(),
    initiatorId: text("initiator_id"),
    /** The user a run counts against for the per-user limit (a token's creator, the trigger's owner…). */
    accountableUserId: text("accountable_user_id"),
    idempotencyKey: text("idempotency_key"),
    inngestRunId: text("inngest_run_id"),
    parentRunId: text("parent_run_id"),
    parentStepId: text("parent_step_id"),
    rootRunId: text("root_run_id").notNull(),
    rerunOfRunId: text("rerun_of_run_id"),
    rerunFromStepId: text("rerun_from_step_id"),
    /** Reruns from a step: the reused outcomes of the steps before it, keyed by step id. */
    rerunSeed: jsonb("rerun_seed").$type<Record<string, unknown>>(),
    /**
     * Repository context (SPEC §3): the URL and ref the run asked for (definition or manual
     * override) and the commit they resolved to before step 1; reruns copy all three.
     */
    repositoryUrl: text("repository_url"),
    repositoryRef: text("repository_ref"),
    repositorySha: text("repository_sha"),
    /** The workspace secret git authenticates with (a name; dropped when a run overrides the URL). */
    repositoryCredentialsSecret: text("repository_credentials_secret"),
    /**
     * A test run from the editor ("Test this step" / "Test up to here", docs/runs.md "Testing
     * while building"): no quota, no system events, no emitted events, hidden from run lists.
     */
    isTest: boolean("is_test").notNull().default(false),
    /** Executed step attempts so far (constraints.maxSteps). */
    stepAttempts: integer("step_attempts").notNull().default(0),
    createdAt: createdAt(),
    queuedAt: tstz("queued_at").notNull().defaultNow(),
    startedAt: tstz("started_at"),
    finishedAt: tstz("finished_at"),
    deadlineAt: tstz("deadline_at"),
    cancelRequestedAt: tstz("cancel_requested_at"),
    updatedAt: tstz("updated_at").notNull().defaultNow(),
  },
  (t) => [
    uniqueIndex("runs_idempotency_key")
      .on(t.workspaceId, t.workflowId, t.idempotencyKey)
      .where(sql`${t.idempotencyKey} is not null`),
    // Inline runs have no workflow (nulls are distinct in the index above): keyed per workspace.
    uniqueIndex("runs_inline_idempotency_key")
      .on(t.workspaceId, t.idempotencyKey)
      .where(sql`${t.idempotencyKey} is not null and ${t.workflowId} is null`),
    index("runs_workspace_created_idx").on(t.workspaceId, t.createdAt),
    index("runs_workspace_status_idx").on(t.workspaceId, t.status),
    index("runs_workflow_created_idx").on(t.workflowId, t.createdAt),
    index("runs_version_idx").on(t.versionId),
    index("runs_parent_idx").on(t.parentRunId),
    index("runs_root_idx").on(t.rootRunId),
    index("runs_rerun_of_idx").on(t.rerunOfRunId),
    index("runs_accountable_status_idx").on(t.accountableUserId, t.status),
    index("runs_trigger_idx").on(t.triggerType, t.triggerId),
    index("runs_queued_idx")
      .on(t.workspaceId, t.queuedAt)
      .where(sql`${t.status} = 'queued'`),
    index("runs_deadline_idx")
      .on(t.deadlineAt)
      .where(sql`${t.status} in ('running','waiting','cancel_requested')`),
  ],
);

/** One row per step attempt (loop iterations carry their path, e.g. `each[3].shape`). */
export const runSteps = pgTable(
  "run_steps",
  {
    id: text("id").primaryKey(),
    runId: text("run_id")
      .notNull()
      .references(() => runs.id, { onDelete: "cascade" }),
    workspaceId: text("workspace_id").notNull(),
    stepId: text("step_id").notNull(),
    /** Full path of the step instance; equals step_id outside loops. */
    path: text("path").notNull(),
    stepType: text("step_type").notNull(),
    attempt: integer("attempt").notNull(),
    status: stepStatusEnum("status").notNull(),
    input: jsonb("input").$type<unknown>(),
    output: jsonb("output").$type<unknown>(),
    error: jsonb("error").$type<Record<string, unknown>>(),
    failureClass: failureClassEnum("failure_class"),
    port: text("port"),
    skipReason: text("skip_reason"),
    /**
     * The delivery executing a side-effecting attempt (claimAttempt): its token and lease. A second
     * delivery of the same attempt waits for the holder's result instead of running the effect
     * again, and takes over only once the lease lapsed (the holder's process died).
     */
    claimToken: text("claim_token"),
    claimedUntil: tstz("claimed_until"),
    /** A failed attempt's Retry-After (ms), so a repeated delivery returns the same outcome. */
    retryAfterMs: integer("retry_after_ms"),
    createdAt: createdAt(),
    startedAt: tstz("started_at"),
    finishedAt: tstz("finished_at"),
  },
  (t) => [
    uniqueIndex("run_steps_attempt_key").on(t.runId, t.path, t.attempt),
    index("run_steps_run_idx").on(t.runId, t.createdAt),
    index("run_steps_workspace_created_idx").on(t.workspaceId, t.createdAt),
  ],
);

/** Append-only history of every state change, for the live UI and audit. */
export const runEvents = pgTable(
  "run_events",
  {
    id: bigserial("id", { mode: "number" }).primaryKey(),
    runId: text("run_id")
      .notNull()
      .references(() => runs.id, { onDelete: "cascade" }),
    workspaceId: text("workspace_id").notNull(),
    type: text("type").notNull(),
    stepPath: text("step_path"),
    data: jsonb("data").$type<Record<string, unknown>>().notNull().default({}),
    createdAt: createdAt(),
  },
  (t) => [
    index("run_events_run_idx").on(t.runId, t.id),
    index("run_events_workspace_idx").on(t.workspaceId, t.id),
  ],
);

export const approvals = pgTable(
  "approvals",
  {
    id: text("id").primaryKey(),
    workspaceId: text("workspace_id")
      .notNull()
      .references(() => workspaces.id, { onDelete: "cascade" }),
    runId: text("run_id")
      .notNull()
      .references(() => runs.id, { onDelete: "cascade" }),
    /** Null for an inline run (no saved workflow). */
    workflowId: text("workflow_id"),
    stepId: text("step_id").notNull(),
    stepPath: text("step_path").notNull(),
    attempt: integer("attempt").notNull(),
    status: approvalStatusEnum("status").notNull(),
    prompt: text("prompt").notNull(),
    items: jsonb("items").$type<unknown>(),
    /** { roles?: Role[], users?: string[] } */
    approvers: jsonb("approvers")
      .$type<{ roles?: string[]; users?: string[] }>()
      .notNull()
      .default({}),
    quorum: integer("quorum").notNull().default(1),
    allowInitiator: boolean("allow_initiator").notNull().default(false),
    initiatorUserId: text("initiator_user_id"),
    onTimeout: text("on_timeout").notNull().default("reject"),
    /** sha256 of exactly what deciders are shown (prompt + items), recorded with each decision. */
    shownHash: text("shown_hash").notNull(),
    expiresAt: tstz("expires_at").notNull(),
    /** The approver's form (field name → InputSpec, lib/workflow/input-spec.ts); null = none. */
    form: jsonb("form").$type<Record<string, unknown>>(),
    /** low | normal | high | urgent (APPROVAL_PRIORITIES). */
    priority: text("priority").notNull().default("normal"),
    /** When a decision is due (shown, sorted, highlighted when past); the gate waits until expiresAt. */
    dueAt: tstz("due_at"),
    decidedAt: tstz("decided_at"),
    decisionReason: text("decision_reason"),
    createdAt: createdAt(),
  },
  (t) => [
    uniqueIndex("approvals_run_step_attempt_key").on(t.runId, t.stepPath, t.attempt),
    index("approvals_workspace_status_idx").on(t.workspaceId, t.status, t.createdAt),
    index("approvals_workspace_status_due_idx").on(t.workspaceId, t.status, t.dueAt),
    index("approvals_run_idx").on(t.runId),
  ],
);

export const approvalDecisions = pgTable(
  "approval_decisions",
  {
    id: text("id").primaryKey(),
    approvalId: text("approval_id")
      .notNull()
      .references(() => approvals.id, { onDelete: "cascade" }),
    workspaceId: text("workspace_id").notNull(),
    /** user id, or a token id for API decisions (acting for its creator). */
    actorType: text("actor_type").notNull(),
    actorId: text("actor_id").notNull(),
    userId: text("user_id").notNull(),
    decision: text("decision").notNull(),
    reason: text("reason").notNull().default(""),
    shownHash: text("shown_hash").notNull(),
    via: text("via").notNull(),
    /** The approver's form values (validated against approvals.form); null when rejecting. */
    formData: jsonb("form_data").$type<Record<string, unknown>>(),
    createdAt: createdAt(),
  },
  (t) => [
    uniqueIndex("approval_decisions_user_key").on(t.approvalId, t.userId),
    index("approval_decisions_workspace_idx").on(t.workspaceId, t.createdAt),
  ],
);
