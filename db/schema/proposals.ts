import { sql } from "drizzle-orm";
import { boolean, index, integer, jsonb, pgEnum, pgTable, text } from "drizzle-orm/pg-core";
import {
  DRY_RUN_STATUSES,
  PROPOSAL_AUTHOR_TYPES,
  REVIEW_DECISIONS,
  RISK_LEVELS,
} from "../../lib/schemas/proposals";
import { PROPOSAL_STATUSES } from "../../lib/workflow/status";
import { createdAt, tstz } from "./common";
import { runs } from "./runs";
import { users } from "./users";
import { workflows } from "./workflows";
import { workspaces } from "./workspaces";

export const proposalStatusEnum = pgEnum("proposal_status", PROPOSAL_STATUSES);
export const proposalAuthorTypeEnum = pgEnum("proposal_author_type", PROPOSAL_AUTHOR_TYPES);
export const riskLevelEnum = pgEnum("risk_level", RISK_LEVELS);
export const dryRunStatusEnum = pgEnum("dry_run_status", DRY_RUN_STATUSES);
export const reviewDecisionEnum = pgEnum("review_decision", REVIEW_DECISIONS);

/**
 * Change proposals (SPEC §8). The proposed definition is content-addressed like versions
 * (definition_contents by `proposed_hash`); the row holds the review state. Status moves only by
 * compare-and-set through lib/workflow/status.ts.
 */
export const proposals = pgTable(
  "proposals",
  {
    id: text("id").primaryKey(),
    workspaceId: text("workspace_id")
      .notNull()
      .references(() => workspaces.id, { onDelete: "cascade" }),
    workflowId: text("workflow_id")
      .notNull()
      .references(() => workflows.id, { onDelete: "cascade" }),
    baseVersionId: text("base_version_id").notNull(),
    baseVersion: text("base_version").notNull(),
    baseHash: text("base_hash").notNull(),
    /** What the proposer named as the base: the hash, or "current" (null: made before it was kept). */
    baseRequested: text("base_requested"),
    proposedHash: text("proposed_hash").notNull(),
    summary: text("summary").notNull(),
    rationale: text("rationale").notNull().default(""),
    /** How the change was given: definition | patch | intent (kept for the audit trail). */
    inputKind: text("input_kind").notNull(),
    authorType: proposalAuthorTypeEnum("author_type").notNull(),
    /** user id, token id, run id or MCP client id. */
    authorId: text("author_id"),
    authorName: text("author_name").notNull(),
    /** The person accountable for the proposal (token creator, run's accountable user): never its own reviewer. */
    authorUserId: text("author_user_id").references(() => users.id, { onDelete: "set null" }),
    /** The author's effective role when proposing: a senior reviewer must rank above it. */
    authorRole: text("author_role").notNull(),
    /** The run and step that proposed it (propose_change); the run may be gone by retention. */
    runId: text("run_id").references(() => runs.id, { onDelete: "set null" }),
    stepId: text("step_id"),
    stepPath: text("step_path"),
    status: proposalStatusEnum("status").notNull().default("pending"),
    statusReason: text("status_reason"),
    expiresAt: tstz("expires_at").notNull(),
    risk: riskLevelEnum("risk").notNull(),
    riskReasons: jsonb("risk_reasons")
      .$type<Record<string, unknown>[]>()
      .notNull()
      .default(sql`'[]'::jsonb`),
    verdicts: jsonb("verdicts")
      .$type<Record<string, unknown>[]>()
      .notNull()
      .default(sql`'[]'::jsonb`),
    needsSeniorReviewer: boolean("needs_senior_reviewer").notNull().default(false),
    /** The workspace's proposal rules' verdicts (CEL, issue #29 item 8): at creation, then at apply. */
    ruleVerdicts: jsonb("rule_verdicts")
      .$type<Record<string, unknown>[]>()
      .notNull()
      .default(sql`'[]'::jsonb`),
    dryRunStatus: dryRunStatusEnum("dry_run_status").notNull().default("pending"),
    dryRunDone: integer("dry_run_done").notNull().default(0),
    dryRunTotal: integer("dry_run_total").notNull().default(0),
    dryRunReport: jsonb("dry_run_report").$type<Record<string, unknown>>(),
    dryRunError: text("dry_run_error"),
    /** Bumped on every dry-run request: a late report of an older request is discarded. */
    dryRunRequest: integer("dry_run_request").notNull().default(0),
    /**
     * Shadow runs (issue #29 item 2): real runs of the base version that finished while the
     * proposal was pending, each replayed on the proposed version (DryRunRunReport[], at most
     * SHADOW_RUNS_PER_PROPOSAL, appended atomically).
     */
    shadowRuns: jsonb("shadow_runs")
      .$type<Record<string, unknown>[]>()
      .notNull()
      .default(sql`'[]'::jsonb`),
    appliedVersionId: text("applied_version_id"),
    appliedAt: tstz("applied_at"),
    appliedBy: text("applied_by"),
    createdAt: createdAt(),
    updatedAt: tstz("updated_at").notNull().defaultNow(),
  },
  (t) => [
    index("proposals_workspace_status_idx").on(t.workspaceId, t.status, t.createdAt),
    index("proposals_workflow_status_idx").on(t.workflowId, t.status, t.createdAt),
    index("proposals_workflow_base_idx").on(t.workflowId, t.baseHash),
    index("proposals_status_expires_idx").on(t.status, t.expiresAt),
    index("proposals_author_user_idx").on(t.authorUserId),
    index("proposals_run_idx").on(t.runId),
    index("proposals_applied_version_idx").on(t.appliedVersionId),
    index("proposals_base_version_idx").on(t.baseVersionId),
  ],
);

/** Review decisions, with a hash of exactly what the reviewer was shown. Append-only in practice. */
export const proposalReviews = pgTable(
  "proposal_reviews",
  {
    id: text("id").primaryKey(),
    proposalId: text("proposal_id")
      .notNull()
      .references(() => proposals.id, { onDelete: "cascade" }),
    workspaceId: text("workspace_id")
      .notNull()
      .references(() => workspaces.id, { onDelete: "cascade" }),
    /** user | token (acting for its creator). */
    actorType: text("actor_type").notNull(),
    actorId: text("actor_id").notNull(),
    userId: text("user_id")
      .notNull()
      .references(() => users.id, { onDelete: "cascade" }),
    reviewerRole: text("reviewer_role").notNull(),
    decision: reviewDecisionEnum("decision").notNull(),
    notes: text("notes").notNull().default(""),
    shownHash: text("shown_hash").notNull(),
    createdAt: createdAt(),
  },
  (t) => [
    index("proposal_reviews_proposal_idx").on(t.proposalId, t.createdAt),
    index("proposal_reviews_workspace_idx").on(t.workspaceId, t.createdAt),
    index("proposal_reviews_user_idx").on(t.userId),
  ],
);
