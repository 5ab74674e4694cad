ALTER TABLE "approval_decisions" ADD COLUMN "form_data" jsonb;--> statement-breakpoint
ALTER TABLE "approvals" ADD COLUMN "form" jsonb;--> statement-breakpoint
ALTER TABLE "approvals" ADD COLUMN "priority" text DEFAULT 'normal' NOT NULL;--> statement-breakpoint
ALTER TABLE "approvals" ADD COLUMN "due_at" timestamp with time zone;--> statement-breakpoint
CREATE INDEX "approvals_workspace_status_due_idx" ON "approvals" USING btree ("workspace_id","status","due_at");