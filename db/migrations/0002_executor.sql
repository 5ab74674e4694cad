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
ALTER TABLE "executor_functions" ADD CONSTRAINT "executor_functions_app_id_executor_apps_id_fk" FOREIGN KEY ("app_id") REFERENCES "public"."executor_apps"("id") ON DELETE no action ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "executor_history" ADD CONSTRAINT "executor_history_run_id_executor_runs_id_fk" FOREIGN KEY ("run_id") REFERENCES "public"."executor_runs"("id") ON DELETE cascade ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "executor_jobs" ADD CONSTRAINT "executor_jobs_run_id_executor_runs_id_fk" FOREIGN KEY ("run_id") REFERENCES "public"."executor_runs"("id") ON DELETE cascade ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "executor_pauses" ADD CONSTRAINT "executor_pauses_run_id_executor_runs_id_fk" FOREIGN KEY ("run_id") REFERENCES "public"."executor_runs"("id") ON DELETE cascade ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "executor_runs" ADD CONSTRAINT "executor_runs_function_id_executor_functions_id_fk" FOREIGN KEY ("function_id") REFERENCES "public"."executor_functions"("id") ON DELETE no action ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "executor_steps" ADD CONSTRAINT "executor_steps_run_id_executor_runs_id_fk" FOREIGN KEY ("run_id") REFERENCES "public"."executor_runs"("id") ON DELETE cascade ON UPDATE no action;--> statement-breakpoint
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
CREATE INDEX "executor_steps_run_seq_idx" ON "executor_steps" USING btree ("run_id","seq");