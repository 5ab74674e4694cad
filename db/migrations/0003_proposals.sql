CREATE TYPE "public"."dry_run_status" AS ENUM('pending', 'running', 'done', 'failed');--> statement-breakpoint
CREATE TYPE "public"."proposal_author_type" AS ENUM('user', 'token', 'run', 'mcp');--> statement-breakpoint
CREATE TYPE "public"."proposal_status" AS ENUM('pending', 'approved', 'applied', 'rejected', 'failed', 'expired', 'superseded');--> statement-breakpoint
CREATE TYPE "public"."review_decision" AS ENUM('approve', 'reject');--> statement-breakpoint
CREATE TYPE "public"."risk_level" AS ENUM('low', 'medium', 'high');--> statement-breakpoint
CREATE TABLE "proposal_reviews" (
	"id" text PRIMARY KEY NOT NULL,
	"proposal_id" text NOT NULL,
	"workspace_id" text NOT NULL,
	"actor_type" text NOT NULL,
	"actor_id" text NOT NULL,
	"user_id" text NOT NULL,
	"reviewer_role" text NOT NULL,
	"decision" "review_decision" NOT NULL,
	"notes" text DEFAULT '' NOT NULL,
	"shown_hash" text NOT NULL,
	"created_at" timestamp with time zone DEFAULT now() NOT NULL
);
--> statement-breakpoint
CREATE TABLE "proposals" (
	"id" text PRIMARY KEY NOT NULL,
	"workspace_id" text NOT NULL,
	"workflow_id" text NOT NULL,
	"base_version_id" text NOT NULL,
	"base_version" text NOT NULL,
	"base_hash" text NOT NULL,
	"proposed_hash" text NOT NULL,
	"summary" text NOT NULL,
	"rationale" text DEFAULT '' NOT NULL,
	"input_kind" text NOT NULL,
	"author_type" "proposal_author_type" NOT NULL,
	"author_id" text,
	"author_name" text NOT NULL,
	"author_user_id" text,
	"author_role" text NOT NULL,
	"run_id" text,
	"step_id" text,
	"step_path" text,
	"status" "proposal_status" DEFAULT 'pending' NOT NULL,
	"status_reason" text,
	"expires_at" timestamp with time zone NOT NULL,
	"risk" "risk_level" NOT NULL,
	"risk_reasons" jsonb DEFAULT '[]'::jsonb NOT NULL,
	"verdicts" jsonb DEFAULT '[]'::jsonb NOT NULL,
	"needs_senior_reviewer" boolean DEFAULT false NOT NULL,
	"dry_run_status" "dry_run_status" DEFAULT 'pending' NOT NULL,
	"dry_run_done" integer DEFAULT 0 NOT NULL,
	"dry_run_total" integer DEFAULT 0 NOT NULL,
	"dry_run_report" jsonb,
	"dry_run_error" text,
	"dry_run_request" integer DEFAULT 0 NOT NULL,
	"applied_version_id" text,
	"applied_at" timestamp with time zone,
	"applied_by" text,
	"created_at" timestamp with time zone DEFAULT now() NOT NULL,
	"updated_at" timestamp with time zone DEFAULT now() NOT NULL
);
--> statement-breakpoint
ALTER TABLE "proposal_reviews" ADD CONSTRAINT "proposal_reviews_proposal_id_proposals_id_fk" FOREIGN KEY ("proposal_id") REFERENCES "public"."proposals"("id") ON DELETE cascade ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "proposal_reviews" ADD CONSTRAINT "proposal_reviews_workspace_id_workspaces_id_fk" FOREIGN KEY ("workspace_id") REFERENCES "public"."workspaces"("id") ON DELETE cascade ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "proposal_reviews" ADD CONSTRAINT "proposal_reviews_user_id_users_id_fk" FOREIGN KEY ("user_id") REFERENCES "public"."users"("id") ON DELETE cascade ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "proposals" ADD CONSTRAINT "proposals_workspace_id_workspaces_id_fk" FOREIGN KEY ("workspace_id") REFERENCES "public"."workspaces"("id") ON DELETE cascade ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "proposals" ADD CONSTRAINT "proposals_workflow_id_workflows_id_fk" FOREIGN KEY ("workflow_id") REFERENCES "public"."workflows"("id") ON DELETE cascade ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "proposals" ADD CONSTRAINT "proposals_author_user_id_users_id_fk" FOREIGN KEY ("author_user_id") REFERENCES "public"."users"("id") ON DELETE set null ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "proposals" ADD CONSTRAINT "proposals_run_id_runs_id_fk" FOREIGN KEY ("run_id") REFERENCES "public"."runs"("id") ON DELETE set null ON UPDATE no action;--> statement-breakpoint
CREATE INDEX "proposal_reviews_proposal_idx" ON "proposal_reviews" USING btree ("proposal_id","created_at");--> statement-breakpoint
CREATE INDEX "proposal_reviews_workspace_idx" ON "proposal_reviews" USING btree ("workspace_id","created_at");--> statement-breakpoint
CREATE INDEX "proposal_reviews_user_idx" ON "proposal_reviews" USING btree ("user_id");--> statement-breakpoint
CREATE INDEX "proposals_workspace_status_idx" ON "proposals" USING btree ("workspace_id","status","created_at");--> statement-breakpoint
CREATE INDEX "proposals_workflow_status_idx" ON "proposals" USING btree ("workflow_id","status","created_at");--> statement-breakpoint
CREATE INDEX "proposals_workflow_base_idx" ON "proposals" USING btree ("workflow_id","base_hash");--> statement-breakpoint
CREATE INDEX "proposals_status_expires_idx" ON "proposals" USING btree ("status","expires_at");--> statement-breakpoint
CREATE INDEX "proposals_author_user_idx" ON "proposals" USING btree ("author_user_id");--> statement-breakpoint
CREATE INDEX "proposals_run_idx" ON "proposals" USING btree ("run_id");--> statement-breakpoint
CREATE INDEX "proposals_applied_version_idx" ON "proposals" USING btree ("applied_version_id");--> statement-breakpoint
CREATE INDEX "proposals_base_version_idx" ON "proposals" USING btree ("base_version_id");