ALTER TABLE "run_steps" ADD COLUMN "claim_token" text;--> statement-breakpoint
ALTER TABLE "run_steps" ADD COLUMN "claimed_until" timestamp with time zone;--> statement-breakpoint
ALTER TABLE "run_steps" ADD COLUMN "retry_after_ms" integer;