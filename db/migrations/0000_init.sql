CREATE TYPE "public"."workspace_role" AS ENUM('viewer', 'approver', 'editor', 'admin', 'owner');--> statement-breakpoint
CREATE TYPE "public"."workflow_version_source" AS ENUM('create', 'publish', 'import', 'proposal_apply', 'rollback');--> statement-breakpoint
CREATE TYPE "public"."approval_status" AS ENUM('pending', 'approved', 'rejected', 'expired', 'cancelled');--> statement-breakpoint
CREATE TYPE "public"."failure_class" AS ENUM('user', 'operational', 'internal');--> statement-breakpoint
CREATE TYPE "public"."initiator_type" AS ENUM('user', 'token', 'schedule', 'webhook', 'event', 'run', 'system');--> statement-breakpoint
CREATE TYPE "public"."run_status" AS ENUM('queued', 'running', 'waiting', 'cancel_requested', 'completed', 'failed', 'cancelled', 'timed_out');--> statement-breakpoint
CREATE TYPE "public"."step_status" AS ENUM('pending', 'running', 'waiting', 'completed', 'failed', 'skipped', 'cancelled');--> statement-breakpoint
CREATE TYPE "public"."trigger_type" AS ENUM('manual', 'api', 'schedule', 'webhook', 'event', 'rerun', 'subworkflow');--> statement-breakpoint
CREATE TABLE "oauth_accounts" (
	"id" text PRIMARY KEY NOT NULL,
	"user_id" text NOT NULL,
	"provider" text NOT NULL,
	"provider_account_id" text NOT NULL,
	"created_at" timestamp with time zone DEFAULT now() NOT NULL
);
--> statement-breakpoint
CREATE TABLE "users" (
	"id" text PRIMARY KEY NOT NULL,
	"email" text NOT NULL,
	"name" text NOT NULL,
	"password_hash" text,
	"created_at" timestamp with time zone DEFAULT now() NOT NULL,
	"updated_at" timestamp with time zone DEFAULT now() NOT NULL
);
--> statement-breakpoint
CREATE TABLE "invitations" (
	"id" text PRIMARY KEY NOT NULL,
	"workspace_id" text NOT NULL,
	"email" text NOT NULL,
	"role" "workspace_role" NOT NULL,
	"token_hash" text NOT NULL,
	"invited_by" text NOT NULL,
	"created_at" timestamp with time zone DEFAULT now() NOT NULL,
	"expires_at" timestamp with time zone NOT NULL,
	"accepted_at" timestamp with time zone,
	"accepted_by" text,
	"revoked_at" timestamp with time zone
);
--> statement-breakpoint
CREATE TABLE "memberships" (
	"workspace_id" text NOT NULL,
	"user_id" text NOT NULL,
	"role" "workspace_role" NOT NULL,
	"created_at" timestamp with time zone DEFAULT now() NOT NULL,
	CONSTRAINT "memberships_workspace_id_user_id_pk" PRIMARY KEY("workspace_id","user_id")
);
--> statement-breakpoint
CREATE TABLE "workspaces" (
	"id" text PRIMARY KEY NOT NULL,
	"name" text NOT NULL,
	"slug" text NOT NULL,
	"settings" jsonb DEFAULT '{}'::jsonb NOT NULL,
	"created_at" timestamp with time zone DEFAULT now() NOT NULL
);
--> statement-breakpoint
CREATE TABLE "api_tokens" (
	"id" text PRIMARY KEY NOT NULL,
	"workspace_id" text NOT NULL,
	"name" text NOT NULL,
	"token_hash" text NOT NULL,
	"prefix" text NOT NULL,
	"role" "workspace_role" NOT NULL,
	"created_by" text NOT NULL,
	"created_at" timestamp with time zone DEFAULT now() NOT NULL,
	"last_used_at" timestamp with time zone,
	"expires_at" timestamp with time zone,
	"revoked_at" timestamp with time zone
);
--> statement-breakpoint
CREATE TABLE "audit_events" (
	"id" bigserial PRIMARY KEY NOT NULL,
	"workspace_id" text,
	"actor_type" text NOT NULL,
	"actor_id" text,
	"action" text NOT NULL,
	"target_type" text,
	"target_id" text,
	"data" jsonb DEFAULT '{}'::jsonb NOT NULL,
	"created_at" timestamp with time zone DEFAULT now() NOT NULL
);
--> statement-breakpoint
CREATE TABLE "definition_contents" (
	"workspace_id" text NOT NULL,
	"hash" text NOT NULL,
	"definition" jsonb NOT NULL,
	"created_at" timestamp with time zone DEFAULT now() NOT NULL,
	CONSTRAINT "definition_contents_workspace_id_hash_pk" PRIMARY KEY("workspace_id","hash")
);
--> statement-breakpoint
CREATE TABLE "workflow_versions" (
	"id" text PRIMARY KEY NOT NULL,
	"workflow_id" text NOT NULL,
	"workspace_id" text NOT NULL,
	"version" text NOT NULL,
	"major" integer NOT NULL,
	"minor" integer NOT NULL,
	"patch" integer NOT NULL,
	"hash" text NOT NULL,
	"source" "workflow_version_source" NOT NULL,
	"notes" text DEFAULT '' NOT NULL,
	"author_type" text NOT NULL,
	"author_id" text,
	"restored_from_version_id" text,
	"created_at" timestamp with time zone DEFAULT now() NOT NULL
);
--> statement-breakpoint
CREATE TABLE "workflows" (
	"id" text PRIMARY KEY NOT NULL,
	"workspace_id" text NOT NULL,
	"name" text NOT NULL,
	"slug" text NOT NULL,
	"description" text DEFAULT '' NOT NULL,
	"tags" text[] DEFAULT '{}'::text[] NOT NULL,
	"is_enabled" boolean DEFAULT true NOT NULL,
	"draft" jsonb NOT NULL,
	"draft_revision" integer DEFAULT 1 NOT NULL,
	"draft_updated_at" timestamp with time zone DEFAULT now() NOT NULL,
	"draft_updated_by" text,
	"draft_hash" text,
	"layout" jsonb DEFAULT '{}'::jsonb NOT NULL,
	"current_version_id" text,
	"created_by" text,
	"created_at" timestamp with time zone DEFAULT now() NOT NULL,
	"updated_at" timestamp with time zone DEFAULT now() NOT NULL,
	"deleted_at" timestamp with time zone
);
--> statement-breakpoint
CREATE TABLE "approval_decisions" (
	"id" text PRIMARY KEY NOT NULL,
	"approval_id" text NOT NULL,
	"workspace_id" text NOT NULL,
	"actor_type" text NOT NULL,
	"actor_id" text NOT NULL,
	"user_id" text NOT NULL,
	"decision" text NOT NULL,
	"reason" text DEFAULT '' NOT NULL,
	"shown_hash" text NOT NULL,
	"via" text NOT NULL,
	"created_at" timestamp with time zone DEFAULT now() NOT NULL
);
--> statement-breakpoint
CREATE TABLE "approvals" (
	"id" text PRIMARY KEY NOT NULL,
	"workspace_id" text NOT NULL,
	"run_id" text NOT NULL,
	"workflow_id" text NOT NULL,
	"step_id" text NOT NULL,
	"step_path" text NOT NULL,
	"attempt" integer NOT NULL,
	"status" "approval_status" NOT NULL,
	"prompt" text NOT NULL,
	"items" jsonb,
	"approvers" jsonb DEFAULT '{}'::jsonb NOT NULL,
	"quorum" integer DEFAULT 1 NOT NULL,
	"allow_initiator" boolean DEFAULT false NOT NULL,
	"initiator_user_id" text,
	"on_timeout" text DEFAULT 'reject' NOT NULL,
	"shown_hash" text NOT NULL,
	"expires_at" timestamp with time zone NOT NULL,
	"decided_at" timestamp with time zone,
	"decision_reason" text,
	"created_at" timestamp with time zone DEFAULT now() NOT NULL
);
--> statement-breakpoint
CREATE TABLE "run_events" (
	"id" bigserial PRIMARY KEY NOT NULL,
	"run_id" text NOT NULL,
	"workspace_id" text NOT NULL,
	"type" text NOT NULL,
	"step_path" text,
	"data" jsonb DEFAULT '{}'::jsonb NOT NULL,
	"created_at" timestamp with time zone DEFAULT now() NOT NULL
);
--> statement-breakpoint
CREATE TABLE "run_steps" (
	"id" text PRIMARY KEY NOT NULL,
	"run_id" text NOT NULL,
	"workspace_id" text NOT NULL,
	"step_id" text NOT NULL,
	"path" text NOT NULL,
	"step_type" text NOT NULL,
	"attempt" integer NOT NULL,
	"status" "step_status" NOT NULL,
	"input" jsonb,
	"output" jsonb,
	"error" jsonb,
	"failure_class" "failure_class",
	"port" text,
	"skip_reason" text,
	"created_at" timestamp with time zone DEFAULT now() NOT NULL,
	"started_at" timestamp with time zone,
	"finished_at" timestamp with time zone
);
--> statement-breakpoint
CREATE TABLE "runs" (
	"id" text PRIMARY KEY NOT NULL,
	"workspace_id" text NOT NULL,
	"workflow_id" text NOT NULL,
	"version_id" text NOT NULL,
	"version" text NOT NULL,
	"hash" text NOT NULL,
	"status" "run_status" NOT NULL,
	"trigger_type" "trigger_type" NOT NULL,
	"trigger_id" text,
	"trigger_payload" jsonb,
	"input" jsonb DEFAULT '{}'::jsonb NOT NULL,
	"output" jsonb,
	"error" jsonb,
	"initiator_type" "initiator_type" NOT NULL,
	"initiator_id" text,
	"accountable_user_id" text,
	"idempotency_key" text,
	"inngest_run_id" text,
	"parent_run_id" text,
	"parent_step_id" text,
	"root_run_id" text NOT NULL,
	"rerun_of_run_id" text,
	"rerun_from_step_id" text,
	"rerun_seed" jsonb,
	"step_attempts" integer DEFAULT 0 NOT NULL,
	"created_at" timestamp with time zone DEFAULT now() NOT NULL,
	"queued_at" timestamp with time zone DEFAULT now() NOT NULL,
	"started_at" timestamp with time zone,
	"finished_at" timestamp with time zone,
	"deadline_at" timestamp with time zone,
	"cancel_requested_at" timestamp with time zone,
	"updated_at" timestamp with time zone DEFAULT now() NOT NULL
);
--> statement-breakpoint
CREATE TABLE "executor_apps" (
	"id" text PRIMARY KEY NOT NULL,
	"url" text NOT NULL,
	"sdk" text,
	"framework" text,
	"synced_at" timestamp with time zone,
	"created_at" timestamp with time zone DEFAULT now() NOT NULL
);
--> statement-breakpoint
CREATE TABLE "executor_cron_claims" (
	"function_id" text NOT NULL,
	"cron" text NOT NULL,
	"tick_at" timestamp with time zone NOT NULL,
	"run_id" text,
	"created_at" timestamp with time zone DEFAULT now() NOT NULL,
	CONSTRAINT "executor_cron_claims_function_id_cron_tick_at_pk" PRIMARY KEY("function_id","cron","tick_at")
);
--> statement-breakpoint
CREATE TABLE "executor_event_ids" (
	"external_id" text PRIMARY KEY NOT NULL,
	"event_id" text NOT NULL,
	"expires_at" timestamp with time zone NOT NULL
);
--> statement-breakpoint
CREATE TABLE "executor_events" (
	"id" text PRIMARY KEY NOT NULL,
	"name" text NOT NULL,
	"payload" jsonb NOT NULL,
	"external_id" text,
	"duplicate_of" text,
	"received_at" timestamp with time zone NOT NULL
);
--> statement-breakpoint
CREATE TABLE "executor_functions" (
	"id" text PRIMARY KEY NOT NULL,
	"app_id" text NOT NULL,
	"name" text,
	"config" jsonb NOT NULL,
	"status" text NOT NULL,
	"errors" jsonb DEFAULT '[]'::jsonb NOT NULL,
	"created_at" timestamp with time zone DEFAULT now() NOT NULL,
	"updated_at" timestamp with time zone DEFAULT now() NOT NULL
);
--> statement-breakpoint
CREATE TABLE "executor_history" (
	"id" bigserial PRIMARY KEY NOT NULL,
	"run_id" text NOT NULL,
	"step_id" text,
	"step_name" text,
	"type" text NOT NULL,
	"attempt" integer DEFAULT 0 NOT NULL,
	"error" jsonb,
	"data" jsonb,
	"started_at" timestamp with time zone,
	"duration_ms" integer,
	"created_at" timestamp with time zone DEFAULT now() NOT NULL
);
--> statement-breakpoint
CREATE TABLE "executor_idempotency" (
	"function_id" text NOT NULL,
	"key" text NOT NULL,
	"run_id" text NOT NULL,
	"expires_at" timestamp with time zone NOT NULL,
	CONSTRAINT "executor_idempotency_function_id_key_pk" PRIMARY KEY("function_id","key")
);
--> statement-breakpoint
CREATE TABLE "executor_jobs" (
	"id" bigserial PRIMARY KEY NOT NULL,
	"run_id" text NOT NULL,
	"kind" text NOT NULL,
	"step_id" text,
	"attempt" integer DEFAULT 0 NOT NULL,
	"run_at" timestamp with time zone NOT NULL,
	"lease_token" text,
	"lease_until" timestamp with time zone,
	"claims" integer DEFAULT 0 NOT NULL,
	"payload" jsonb DEFAULT '{}'::jsonb NOT NULL,
	"concurrency_keys" text[] DEFAULT '{}'::text[] NOT NULL,
	"concurrency_limits" integer[] DEFAULT '{}'::int[] NOT NULL,
	"created_at" timestamp with time zone DEFAULT now() NOT NULL
);
--> statement-breakpoint
CREATE TABLE "executor_pauses" (
	"id" text PRIMARY KEY NOT NULL,
	"run_id" text NOT NULL,
	"step_id" text NOT NULL,
	"step_name" text,
	"kind" text NOT NULL,
	"event_name" text,
	"expression" text,
	"child_run_id" text,
	"status" text NOT NULL,
	"expires_at" timestamp with time zone,
	"resolved_event_id" text,
	"created_at" timestamp with time zone DEFAULT now() NOT NULL,
	"resolved_at" timestamp with time zone
);
--> statement-breakpoint
CREATE TABLE "executor_runs" (
	"id" text PRIMARY KEY NOT NULL,
	"function_id" text NOT NULL,
	"status" text NOT NULL,
	"event" jsonb NOT NULL,
	"events" jsonb NOT NULL,
	"event_id" text,
	"output" jsonb,
	"error" jsonb,
	"pending" jsonb DEFAULT '{}'::jsonb NOT NULL,
	"step_count" integer DEFAULT 0 NOT NULL,
	"concurrency_keys" text[] DEFAULT '{}'::text[] NOT NULL,
	"concurrency_limits" integer[] DEFAULT '{}'::int[] NOT NULL,
	"parent_run_id" text,
	"parent_step_id" text,
	"idempotency_key" text,
	"cron_tick" bigint,
	"created_at" timestamp with time zone DEFAULT now() NOT NULL,
	"started_at" timestamp with time zone,
	"ended_at" timestamp with time zone
);
--> statement-breakpoint
CREATE TABLE "executor_steps" (
	"run_id" text NOT NULL,
	"step_id" text NOT NULL,
	"seq" bigserial NOT NULL,
	"name" text,
	"op" text NOT NULL,
	"output" jsonb,
	"created_at" timestamp with time zone DEFAULT now() NOT NULL,
	CONSTRAINT "executor_steps_run_id_step_id_pk" PRIMARY KEY("run_id","step_id")
);
--> statement-breakpoint
CREATE TABLE "outbox" (
	"id" text PRIMARY KEY NOT NULL,
	"workspace_id" text,
	"topic" text NOT NULL,
	"name" text NOT NULL,
	"payload" jsonb NOT NULL,
	"created_at" timestamp with time zone DEFAULT now() NOT NULL,
	"available_at" timestamp with time zone DEFAULT now() NOT NULL,
	"attempts" integer DEFAULT 0 NOT NULL,
	"last_error" text,
	"delivered_at" timestamp with time zone
);
--> statement-breakpoint
CREATE TABLE "secrets" (
	"id" text PRIMARY KEY NOT NULL,
	"workspace_id" text NOT NULL,
	"name" text NOT NULL,
	"ciphertext" text NOT NULL,
	"iv" text NOT NULL,
	"auth_tag" text NOT NULL,
	"key_version" integer NOT NULL,
	"created_at" timestamp with time zone DEFAULT now() NOT NULL,
	"created_by" text,
	"updated_at" timestamp with time zone DEFAULT now() NOT NULL,
	"updated_by" text,
	CONSTRAINT "secrets_name_format" CHECK ("secrets"."name" ~ '^[A-Z][A-Z0-9_]*$')
);
--> statement-breakpoint
ALTER TABLE "oauth_accounts" ADD CONSTRAINT "oauth_accounts_user_id_users_id_fk" FOREIGN KEY ("user_id") REFERENCES "public"."users"("id") ON DELETE cascade ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "invitations" ADD CONSTRAINT "invitations_workspace_id_workspaces_id_fk" FOREIGN KEY ("workspace_id") REFERENCES "public"."workspaces"("id") ON DELETE cascade ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "invitations" ADD CONSTRAINT "invitations_invited_by_users_id_fk" FOREIGN KEY ("invited_by") REFERENCES "public"."users"("id") ON DELETE no action ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "invitations" ADD CONSTRAINT "invitations_accepted_by_users_id_fk" FOREIGN KEY ("accepted_by") REFERENCES "public"."users"("id") ON DELETE no action ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "memberships" ADD CONSTRAINT "memberships_workspace_id_workspaces_id_fk" FOREIGN KEY ("workspace_id") REFERENCES "public"."workspaces"("id") ON DELETE cascade ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "memberships" ADD CONSTRAINT "memberships_user_id_users_id_fk" FOREIGN KEY ("user_id") REFERENCES "public"."users"("id") ON DELETE cascade ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "api_tokens" ADD CONSTRAINT "api_tokens_workspace_id_workspaces_id_fk" FOREIGN KEY ("workspace_id") REFERENCES "public"."workspaces"("id") ON DELETE cascade ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "api_tokens" ADD CONSTRAINT "api_tokens_created_by_users_id_fk" FOREIGN KEY ("created_by") REFERENCES "public"."users"("id") ON DELETE no action ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "audit_events" ADD CONSTRAINT "audit_events_workspace_id_workspaces_id_fk" FOREIGN KEY ("workspace_id") REFERENCES "public"."workspaces"("id") ON DELETE no action ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "definition_contents" ADD CONSTRAINT "definition_contents_workspace_id_workspaces_id_fk" FOREIGN KEY ("workspace_id") REFERENCES "public"."workspaces"("id") ON DELETE cascade ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "workflow_versions" ADD CONSTRAINT "workflow_versions_workflow_id_workflows_id_fk" FOREIGN KEY ("workflow_id") REFERENCES "public"."workflows"("id") ON DELETE cascade ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "workflow_versions" ADD CONSTRAINT "workflow_versions_workspace_id_workspaces_id_fk" FOREIGN KEY ("workspace_id") REFERENCES "public"."workspaces"("id") ON DELETE cascade ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "workflows" ADD CONSTRAINT "workflows_workspace_id_workspaces_id_fk" FOREIGN KEY ("workspace_id") REFERENCES "public"."workspaces"("id") ON DELETE cascade ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "workflows" ADD CONSTRAINT "workflows_draft_updated_by_users_id_fk" FOREIGN KEY ("draft_updated_by") REFERENCES "public"."users"("id") ON DELETE no action ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "workflows" ADD CONSTRAINT "workflows_created_by_users_id_fk" FOREIGN KEY ("created_by") REFERENCES "public"."users"("id") ON DELETE no action ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "approval_decisions" ADD CONSTRAINT "approval_decisions_approval_id_approvals_id_fk" FOREIGN KEY ("approval_id") REFERENCES "public"."approvals"("id") ON DELETE cascade ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "approvals" ADD CONSTRAINT "approvals_workspace_id_workspaces_id_fk" FOREIGN KEY ("workspace_id") REFERENCES "public"."workspaces"("id") ON DELETE cascade ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "approvals" ADD CONSTRAINT "approvals_run_id_runs_id_fk" FOREIGN KEY ("run_id") REFERENCES "public"."runs"("id") ON DELETE cascade ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "run_events" ADD CONSTRAINT "run_events_run_id_runs_id_fk" FOREIGN KEY ("run_id") REFERENCES "public"."runs"("id") ON DELETE cascade ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "run_steps" ADD CONSTRAINT "run_steps_run_id_runs_id_fk" FOREIGN KEY ("run_id") REFERENCES "public"."runs"("id") ON DELETE cascade ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "runs" ADD CONSTRAINT "runs_workspace_id_workspaces_id_fk" FOREIGN KEY ("workspace_id") REFERENCES "public"."workspaces"("id") ON DELETE cascade ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "runs" ADD CONSTRAINT "runs_workflow_id_workflows_id_fk" FOREIGN KEY ("workflow_id") REFERENCES "public"."workflows"("id") ON DELETE cascade ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "runs" ADD CONSTRAINT "runs_version_id_workflow_versions_id_fk" FOREIGN KEY ("version_id") REFERENCES "public"."workflow_versions"("id") ON DELETE no action ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "executor_functions" ADD CONSTRAINT "executor_functions_app_id_executor_apps_id_fk" FOREIGN KEY ("app_id") REFERENCES "public"."executor_apps"("id") ON DELETE no action ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "executor_history" ADD CONSTRAINT "executor_history_run_id_executor_runs_id_fk" FOREIGN KEY ("run_id") REFERENCES "public"."executor_runs"("id") ON DELETE cascade ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "executor_jobs" ADD CONSTRAINT "executor_jobs_run_id_executor_runs_id_fk" FOREIGN KEY ("run_id") REFERENCES "public"."executor_runs"("id") ON DELETE cascade ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "executor_pauses" ADD CONSTRAINT "executor_pauses_run_id_executor_runs_id_fk" FOREIGN KEY ("run_id") REFERENCES "public"."executor_runs"("id") ON DELETE cascade ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "executor_runs" ADD CONSTRAINT "executor_runs_function_id_executor_functions_id_fk" FOREIGN KEY ("function_id") REFERENCES "public"."executor_functions"("id") ON DELETE no action ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "executor_steps" ADD CONSTRAINT "executor_steps_run_id_executor_runs_id_fk" FOREIGN KEY ("run_id") REFERENCES "public"."executor_runs"("id") ON DELETE cascade ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "secrets" ADD CONSTRAINT "secrets_workspace_id_workspaces_id_fk" FOREIGN KEY ("workspace_id") REFERENCES "public"."workspaces"("id") ON DELETE cascade ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "secrets" ADD CONSTRAINT "secrets_created_by_users_id_fk" FOREIGN KEY ("created_by") REFERENCES "public"."users"("id") ON DELETE set null ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "secrets" ADD CONSTRAINT "secrets_updated_by_users_id_fk" FOREIGN KEY ("updated_by") REFERENCES "public"."users"("id") ON DELETE set null ON UPDATE no action;--> statement-breakpoint
CREATE UNIQUE INDEX "oauth_accounts_provider_key" ON "oauth_accounts" USING btree ("provider","provider_account_id");--> statement-breakpoint
CREATE INDEX "oauth_accounts_user_idx" ON "oauth_accounts" USING btree ("user_id");--> statement-breakpoint
CREATE UNIQUE INDEX "users_email_key" ON "users" USING btree ("email");--> statement-breakpoint
CREATE UNIQUE INDEX "invitations_token_hash_key" ON "invitations" USING btree ("token_hash");--> statement-breakpoint
CREATE INDEX "invitations_workspace_idx" ON "invitations" USING btree ("workspace_id");--> statement-breakpoint
CREATE INDEX "invitations_invited_by_idx" ON "invitations" USING btree ("invited_by");--> statement-breakpoint
CREATE INDEX "invitations_accepted_by_idx" ON "invitations" USING btree ("accepted_by");--> statement-breakpoint
CREATE INDEX "memberships_user_idx" ON "memberships" USING btree ("user_id");--> statement-breakpoint
CREATE UNIQUE INDEX "workspaces_slug_key" ON "workspaces" USING btree ("slug");--> statement-breakpoint
CREATE UNIQUE INDEX "api_tokens_token_hash_key" ON "api_tokens" USING btree ("token_hash");--> statement-breakpoint
CREATE INDEX "api_tokens_workspace_idx" ON "api_tokens" USING btree ("workspace_id");--> statement-breakpoint
CREATE INDEX "api_tokens_created_by_idx" ON "api_tokens" USING btree ("created_by");--> statement-breakpoint
CREATE INDEX "audit_events_workspace_created_idx" ON "audit_events" USING btree ("workspace_id","created_at");--> statement-breakpoint
CREATE INDEX "audit_events_target_idx" ON "audit_events" USING btree ("target_type","target_id");--> statement-breakpoint
CREATE UNIQUE INDEX "workflow_versions_workflow_version_key" ON "workflow_versions" USING btree ("workflow_id","version");--> statement-breakpoint
CREATE INDEX "workflow_versions_workflow_created_idx" ON "workflow_versions" USING btree ("workflow_id","created_at");--> statement-breakpoint
CREATE INDEX "workflow_versions_workspace_hash_idx" ON "workflow_versions" USING btree ("workspace_id","hash");--> statement-breakpoint
CREATE INDEX "workflow_versions_restored_from_idx" ON "workflow_versions" USING btree ("restored_from_version_id");--> statement-breakpoint
CREATE UNIQUE INDEX "workflows_workspace_slug_key" ON "workflows" USING btree ("workspace_id","slug") WHERE "workflows"."deleted_at" is null;--> statement-breakpoint
CREATE INDEX "workflows_workspace_updated_idx" ON "workflows" USING btree ("workspace_id","updated_at");--> statement-breakpoint
CREATE INDEX "workflows_workspace_enabled_idx" ON "workflows" USING btree ("workspace_id","is_enabled");--> statement-breakpoint
CREATE INDEX "workflows_current_version_idx" ON "workflows" USING btree ("current_version_id");--> statement-breakpoint
CREATE INDEX "workflows_created_by_idx" ON "workflows" USING btree ("created_by");--> statement-breakpoint
CREATE INDEX "workflows_draft_updated_by_idx" ON "workflows" USING btree ("draft_updated_by");--> statement-breakpoint
CREATE UNIQUE INDEX "approval_decisions_user_key" ON "approval_decisions" USING btree ("approval_id","user_id");--> statement-breakpoint
CREATE INDEX "approval_decisions_workspace_idx" ON "approval_decisions" USING btree ("workspace_id","created_at");--> statement-breakpoint
CREATE UNIQUE INDEX "approvals_run_step_attempt_key" ON "approvals" USING btree ("run_id","step_path","attempt");--> statement-breakpoint
CREATE INDEX "approvals_workspace_status_idx" ON "approvals" USING btree ("workspace_id","status","created_at");--> statement-breakpoint
CREATE INDEX "approvals_run_idx" ON "approvals" USING btree ("run_id");--> statement-breakpoint
CREATE INDEX "run_events_run_idx" ON "run_events" USING btree ("run_id","id");--> statement-breakpoint
CREATE INDEX "run_events_workspace_idx" ON "run_events" USING btree ("workspace_id","id");--> statement-breakpoint
CREATE UNIQUE INDEX "run_steps_attempt_key" ON "run_steps" USING btree ("run_id","path","attempt");--> statement-breakpoint
CREATE INDEX "run_steps_run_idx" ON "run_steps" USING btree ("run_id","created_at");--> statement-breakpoint
CREATE INDEX "run_steps_workspace_created_idx" ON "run_steps" USING btree ("workspace_id","created_at");--> statement-breakpoint
CREATE UNIQUE INDEX "runs_idempotency_key" ON "runs" USING btree ("workspace_id","workflow_id","idempotency_key") WHERE "runs"."idempotency_key" is not null;--> statement-breakpoint
CREATE INDEX "runs_workspace_created_idx" ON "runs" USING btree ("workspace_id","created_at");--> statement-breakpoint
CREATE INDEX "runs_workspace_status_idx" ON "runs" USING btree ("workspace_id","status");--> statement-breakpoint
CREATE INDEX "runs_workflow_created_idx" ON "runs" USING btree ("workflow_id","created_at");--> statement-breakpoint
CREATE INDEX "runs_version_idx" ON "runs" USING btree ("version_id");--> statement-breakpoint
CREATE INDEX "runs_parent_idx" ON "runs" USING btree ("parent_run_id");--> statement-breakpoint
CREATE INDEX "runs_root_idx" ON "runs" USING btree ("root_run_id");--> statement-breakpoint
CREATE INDEX "runs_rerun_of_idx" ON "runs" USING btree ("rerun_of_run_id");--> statement-breakpoint
CREATE INDEX "runs_accountable_status_idx" ON "runs" USING btree ("accountable_user_id","status");--> statement-breakpoint
CREATE INDEX "runs_trigger_idx" ON "runs" USING btree ("trigger_type","trigger_id");--> statement-breakpoint
CREATE INDEX "runs_queued_idx" ON "runs" USING btree ("workspace_id","queued_at") WHERE "runs"."status" = 'queued';--> statement-breakpoint
CREATE INDEX "runs_deadline_idx" ON "runs" USING btree ("deadline_at") WHERE "runs"."status" in ('running','waiting','cancel_requested');--> statement-breakpoint
CREATE INDEX "executor_cron_claims_tick_idx" ON "executor_cron_claims" USING btree ("tick_at");--> statement-breakpoint
CREATE INDEX "executor_event_ids_expires_idx" ON "executor_event_ids" USING btree ("expires_at");--> statement-breakpoint
CREATE INDEX "executor_events_name_idx" ON "executor_events" USING btree ("name","received_at");--> statement-breakpoint
CREATE INDEX "executor_events_received_idx" ON "executor_events" USING btree ("received_at");--> statement-breakpoint
CREATE INDEX "executor_events_external_idx" ON "executor_events" USING btree ("external_id");--> statement-breakpoint
CREATE INDEX "executor_functions_app_idx" ON "executor_functions" USING btree ("app_id");--> statement-breakpoint
CREATE INDEX "executor_functions_status_idx" ON "executor_functions" USING btree ("status");--> statement-breakpoint
CREATE INDEX "executor_history_run_idx" ON "executor_history" USING btree ("run_id","id");--> statement-breakpoint
CREATE INDEX "executor_idempotency_expires_idx" ON "executor_idempotency" USING btree ("expires_at");--> statement-breakpoint
CREATE INDEX "executor_jobs_due_idx" ON "executor_jobs" USING btree ("run_at","id");--> statement-breakpoint
CREATE INDEX "executor_jobs_run_idx" ON "executor_jobs" USING btree ("run_id");--> statement-breakpoint
CREATE INDEX "executor_jobs_lease_idx" ON "executor_jobs" USING btree ("lease_until");--> statement-breakpoint
CREATE UNIQUE INDEX "executor_jobs_discovery_key" ON "executor_jobs" USING btree ("run_id") WHERE kind = 'call' and step_id is null;--> statement-breakpoint
CREATE UNIQUE INDEX "executor_jobs_step_key" ON "executor_jobs" USING btree ("run_id","step_id") WHERE kind in ('call', 'wake') and step_id is not null;--> statement-breakpoint
CREATE INDEX "executor_pauses_event_idx" ON "executor_pauses" USING btree ("event_name","status");--> statement-breakpoint
CREATE INDEX "executor_pauses_run_idx" ON "executor_pauses" USING btree ("run_id");--> statement-breakpoint
CREATE INDEX "executor_pauses_child_idx" ON "executor_pauses" USING btree ("child_run_id");--> statement-breakpoint
CREATE INDEX "executor_runs_status_idx" ON "executor_runs" USING btree ("status","created_at");--> statement-breakpoint
CREATE INDEX "executor_runs_function_idx" ON "executor_runs" USING btree ("function_id","status","created_at");--> statement-breakpoint
CREATE INDEX "executor_runs_event_idx" ON "executor_runs" USING btree ("event_id");--> statement-breakpoint
CREATE INDEX "executor_runs_parent_idx" ON "executor_runs" USING btree ("parent_run_id");--> statement-breakpoint
CREATE INDEX "executor_steps_run_seq_idx" ON "executor_steps" USING btree ("run_id","seq");--> statement-breakpoint
CREATE INDEX "outbox_pending_idx" ON "outbox" USING btree ("available_at") WHERE "outbox"."delivered_at" is null;--> statement-breakpoint
CREATE INDEX "outbox_workspace_idx" ON "outbox" USING btree ("workspace_id","created_at");--> statement-breakpoint
CREATE UNIQUE INDEX "secrets_workspace_name_key" ON "secrets" USING btree ("workspace_id","name");--> statement-breakpoint
CREATE INDEX "secrets_created_by_idx" ON "secrets" USING btree ("created_by");--> statement-breakpoint
CREATE INDEX "secrets_updated_by_idx" ON "secrets" USING btree ("updated_by");