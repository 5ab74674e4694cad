CREATE TABLE "auth_throttles" (
	"key" text PRIMARY KEY NOT NULL,
	"scope" text NOT NULL,
	"failures" integer DEFAULT 0 NOT NULL,
	"locked_until" timestamp with time zone,
	"last_failure_at" timestamp with time zone NOT NULL,
	CONSTRAINT "auth_throttles_failures" CHECK ("auth_throttles"."failures" >= 0)
);
--> statement-breakpoint
ALTER TABLE "audit_events" ADD COLUMN "client_address" text;--> statement-breakpoint
ALTER TABLE "audit_events" ADD COLUMN "user_agent" text;--> statement-breakpoint
CREATE INDEX "auth_throttles_last_failure_idx" ON "auth_throttles" USING btree ("last_failure_at");