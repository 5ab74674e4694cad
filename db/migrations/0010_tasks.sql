CREATE TYPE "public"."task_status" AS ENUM('pending', 'completed', 'failed', 'expired', 'cancelled');--> statement-breakpoint
CREATE TABLE "tasks" (
	"id" text PRIMARY KEY NOT NULL,
	"workspace_id" text NOT NULL,
	"run_id" text NOT NULL,
	"workflow_id" text NOT NULL,
	"step_id" text NOT NULL,
	"step_path" text NOT NULL,
	"attempt" integer NOT NULL,
	"status" "task_status" NOT NULL,
	"instructions" text NOT NULL,
	"assignee" jsonb NOT NULL,
	"output_schema" jsonb,
	"output" jsonb,
	"failure_reason" text,
	"on_timeout" text DEFAULT 'fail' NOT NULL,
	"due_at" timestamp with time zone,
	"expires_at" timestamp with time zone NOT NULL,
	"finished_at" timestamp with time zone,
	"finished_by_type" text,
	"finished_by_id" text,
	"finished_by_user_id" text,
	"finished_via" text,
	"created_at" timestamp with time zone DEFAULT now() NOT NULL
);
--> statement-breakpoint
ALTER TABLE "tasks" ADD CONSTRAINT "tasks_workspace_id_workspaces_id_fk" FOREIGN KEY ("workspace_id") REFERENCES "public"."workspaces"("id") ON DELETE cascade ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "tasks" ADD CONSTRAINT "tasks_run_id_runs_id_fk" FOREIGN KEY ("run_id") REFERENCES "public"."runs"("id") ON DELETE cascade ON UPDATE no action;--> statement-breakpoint
CREATE UNIQUE INDEX "tasks_run_step_attempt_key" ON "tasks" USING btree ("run_id","step_path","attempt");--> statement-breakpoint
CREATE INDEX "tasks_workspace_status_idx" ON "tasks" USING btree ("workspace_id","status","expires_at");--> statement-breakpoint
CREATE INDEX "tasks_run_idx" ON "tasks" USING btree ("run_id");