ALTER TABLE "approvals" ALTER COLUMN "workflow_id" DROP NOT NULL;--> statement-breakpoint
ALTER TABLE "tasks" ALTER COLUMN "workflow_id" DROP NOT NULL;