ALTER TABLE "runs" ALTER COLUMN "workflow_id" DROP NOT NULL;--> statement-breakpoint
ALTER TABLE "runs" ALTER COLUMN "version_id" DROP NOT NULL;--> statement-breakpoint
CREATE UNIQUE INDEX "runs_inline_idempotency_key" ON "runs" USING btree ("workspace_id","idempotency_key") WHERE "runs"."idempotency_key" is not null and "runs"."workflow_id" is null;