CREATE TABLE "alerts" (
	"id" text PRIMARY KEY NOT NULL,
	"workspace_id" text NOT NULL,
	"kind" text NOT NULL,
	"subject_id" text NOT NULL,
	"workflow_id" text,
	"run_id" text,
	"trigger_id" text,
	"occurrence_key" text NOT NULL,
	"status" text NOT NULL,
	"suppressed_count" integer DEFAULT 0 NOT NULL,
	"summary" text NOT NULL,
	"detail" jsonb DEFAULT '{}'::jsonb NOT NULL,
	"deliveries" jsonb DEFAULT '[]'::jsonb NOT NULL,
	"attempts" integer DEFAULT 0 NOT NULL,
	"last_error" text,
	"created_at" timestamp with time zone DEFAULT now() NOT NULL,
	"delivered_at" timestamp with time zone
);
--> statement-breakpoint
CREATE TABLE "workflow_alert_settings" (
	"workflow_id" text PRIMARY KEY NOT NULL,
	"workspace_id" text NOT NULL,
	"channels" jsonb,
	"error_workflow_id" text,
	"updated_by" text,
	"updated_at" timestamp with time zone DEFAULT now() NOT NULL
);
--> statement-breakpoint
ALTER TABLE "alerts" ADD CONSTRAINT "alerts_workspace_id_workspaces_id_fk" FOREIGN KEY ("workspace_id") REFERENCES "public"."workspaces"("id") ON DELETE cascade ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "workflow_alert_settings" ADD CONSTRAINT "workflow_alert_settings_workflow_id_workflows_id_fk" FOREIGN KEY ("workflow_id") REFERENCES "public"."workflows"("id") ON DELETE cascade ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "workflow_alert_settings" ADD CONSTRAINT "workflow_alert_settings_workspace_id_workspaces_id_fk" FOREIGN KEY ("workspace_id") REFERENCES "public"."workspaces"("id") ON DELETE cascade ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "workflow_alert_settings" ADD CONSTRAINT "workflow_alert_settings_error_workflow_id_workflows_id_fk" FOREIGN KEY ("error_workflow_id") REFERENCES "public"."workflows"("id") ON DELETE set null ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "workflow_alert_settings" ADD CONSTRAINT "workflow_alert_settings_updated_by_users_id_fk" FOREIGN KEY ("updated_by") REFERENCES "public"."users"("id") ON DELETE set null ON UPDATE no action;--> statement-breakpoint
CREATE UNIQUE INDEX "alerts_occurrence_key" ON "alerts" USING btree ("workspace_id","kind","occurrence_key");--> statement-breakpoint
CREATE INDEX "alerts_subject_idx" ON "alerts" USING btree ("workspace_id","kind","subject_id","created_at");--> statement-breakpoint
CREATE INDEX "alerts_workspace_created_idx" ON "alerts" USING btree ("workspace_id","created_at");--> statement-breakpoint
CREATE INDEX "alerts_workflow_created_idx" ON "alerts" USING btree ("workflow_id","created_at") WHERE "alerts"."workflow_id" is not null;--> statement-breakpoint
CREATE INDEX "workflow_alert_settings_workspace_idx" ON "workflow_alert_settings" USING btree ("workspace_id");--> statement-breakpoint
CREATE INDEX "workflow_alert_settings_error_workflow_idx" ON "workflow_alert_settings" USING btree ("error_workflow_id");--> statement-breakpoint
CREATE INDEX "workflow_alert_settings_updated_by_idx" ON "workflow_alert_settings" USING btree ("updated_by");