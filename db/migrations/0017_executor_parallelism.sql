CREATE TABLE "executor_job_keys" (
	"run_id" text NOT NULL,
	"key" text NOT NULL,
	"created_at" timestamp with time zone DEFAULT now() NOT NULL,
	CONSTRAINT "executor_job_keys_run_id_key_pk" PRIMARY KEY("run_id","key")
);
--> statement-breakpoint
DROP INDEX "executor_jobs_discovery_key";--> statement-breakpoint
ALTER TABLE "executor_jobs" ADD COLUMN "job_key" text;--> statement-breakpoint
ALTER TABLE "executor_runs" ADD COLUMN "inngest_pending" text[] DEFAULT '{}'::text[] NOT NULL;--> statement-breakpoint
ALTER TABLE "executor_runs" ADD COLUMN "force_step_plan" boolean DEFAULT false NOT NULL;--> statement-breakpoint
ALTER TABLE "executor_job_keys" ADD CONSTRAINT "executor_job_keys_run_id_executor_runs_id_fk" FOREIGN KEY ("run_id") REFERENCES "public"."executor_runs"("id") ON DELETE cascade ON UPDATE no action;--> statement-breakpoint
CREATE UNIQUE INDEX "executor_jobs_discovery_key" ON "executor_jobs" USING btree ("run_id") WHERE kind = 'call' and step_id is null and job_key is null;