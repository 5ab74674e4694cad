CREATE TABLE "schedule_ticks" (
	"trigger_id" text NOT NULL,
	"tick" timestamp with time zone NOT NULL,
	"workspace_id" text NOT NULL,
	"status" text NOT NULL,
	"reason" text,
	"run_id" text,
	"claimed_at" timestamp with time zone DEFAULT now() NOT NULL,
	CONSTRAINT "schedule_ticks_trigger_id_tick_pk" PRIMARY KEY("trigger_id","tick")
);
--> statement-breakpoint
CREATE TABLE "trigger_deliveries" (
	"id" text PRIMARY KEY NOT NULL,
	"workspace_id" text NOT NULL,
	"trigger_id" text NOT NULL,
	"received_at" timestamp with time zone DEFAULT now() NOT NULL,
	"status" text NOT NULL,
	"reason" text,
	"http_status" integer,
	"delivery_key" text,
	"run_id" text,
	"request" jsonb
);
--> statement-breakpoint
CREATE TABLE "triggers" (
	"id" text PRIMARY KEY NOT NULL,
	"workspace_id" text NOT NULL,
	"workflow_id" text NOT NULL,
	"kind" text NOT NULL,
	"name" text NOT NULL,
	"enabled" boolean DEFAULT true NOT NULL,
	"config" jsonb NOT NULL,
	"path" text,
	"secret" jsonb,
	"previous_secret" jsonb,
	"previous_secret_expires_at" timestamp with time zone,
	"event_name" text,
	"schedule_cursor" timestamp with time zone,
	"last_fired_at" timestamp with time zone,
	"last_run_id" text,
	"created_at" timestamp with time zone DEFAULT now() NOT NULL,
	"created_by" text,
	"updated_at" timestamp with time zone DEFAULT now() NOT NULL,
	CONSTRAINT "triggers_kind" CHECK ("triggers"."kind" in ('webhook', 'schedule', 'event')),
	CONSTRAINT "triggers_webhook_path" CHECK (("triggers"."kind" = 'webhook') = ("triggers"."path" is not null))
);
--> statement-breakpoint
ALTER TABLE "schedule_ticks" ADD CONSTRAINT "schedule_ticks_trigger_id_triggers_id_fk" FOREIGN KEY ("trigger_id") REFERENCES "public"."triggers"("id") ON DELETE cascade ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "schedule_ticks" ADD CONSTRAINT "schedule_ticks_workspace_id_workspaces_id_fk" FOREIGN KEY ("workspace_id") REFERENCES "public"."workspaces"("id") ON DELETE cascade ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "schedule_ticks" ADD CONSTRAINT "schedule_ticks_run_id_runs_id_fk" FOREIGN KEY ("run_id") REFERENCES "public"."runs"("id") ON DELETE set null ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "trigger_deliveries" ADD CONSTRAINT "trigger_deliveries_workspace_id_workspaces_id_fk" FOREIGN KEY ("workspace_id") REFERENCES "public"."workspaces"("id") ON DELETE cascade ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "trigger_deliveries" ADD CONSTRAINT "trigger_deliveries_trigger_id_triggers_id_fk" FOREIGN KEY ("trigger_id") REFERENCES "public"."triggers"("id") ON DELETE cascade ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "trigger_deliveries" ADD CONSTRAINT "trigger_deliveries_run_id_runs_id_fk" FOREIGN KEY ("run_id") REFERENCES "public"."runs"("id") ON DELETE set null ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "triggers" ADD CONSTRAINT "triggers_workspace_id_workspaces_id_fk" FOREIGN KEY ("workspace_id") REFERENCES "public"."workspaces"("id") ON DELETE cascade ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "triggers" ADD CONSTRAINT "triggers_workflow_id_workflows_id_fk" FOREIGN KEY ("workflow_id") REFERENCES "public"."workflows"("id") ON DELETE cascade ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "triggers" ADD CONSTRAINT "triggers_last_run_id_runs_id_fk" FOREIGN KEY ("last_run_id") REFERENCES "public"."runs"("id") ON DELETE set null ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "triggers" ADD CONSTRAINT "triggers_created_by_users_id_fk" FOREIGN KEY ("created_by") REFERENCES "public"."users"("id") ON DELETE set null ON UPDATE no action;--> statement-breakpoint
CREATE INDEX "schedule_ticks_workspace_idx" ON "schedule_ticks" USING btree ("workspace_id","claimed_at");--> statement-breakpoint
CREATE INDEX "schedule_ticks_run_idx" ON "schedule_ticks" USING btree ("run_id");--> statement-breakpoint
CREATE INDEX "trigger_deliveries_trigger_idx" ON "trigger_deliveries" USING btree ("trigger_id","received_at");--> statement-breakpoint
CREATE INDEX "trigger_deliveries_workspace_idx" ON "trigger_deliveries" USING btree ("workspace_id","received_at");--> statement-breakpoint
CREATE INDEX "trigger_deliveries_run_idx" ON "trigger_deliveries" USING btree ("run_id");--> statement-breakpoint
CREATE UNIQUE INDEX "triggers_path_key" ON "triggers" USING btree ("path");--> statement-breakpoint
CREATE INDEX "triggers_workflow_idx" ON "triggers" USING btree ("workspace_id","workflow_id");--> statement-breakpoint
CREATE INDEX "triggers_event_idx" ON "triggers" USING btree ("workspace_id","event_name") WHERE "triggers"."kind" = 'event';--> statement-breakpoint
CREATE INDEX "triggers_schedule_idx" ON "triggers" USING btree ("kind","enabled");--> statement-breakpoint
CREATE INDEX "triggers_created_by_idx" ON "triggers" USING btree ("created_by");--> statement-breakpoint
CREATE INDEX "triggers_last_run_idx" ON "triggers" USING btree ("last_run_id");