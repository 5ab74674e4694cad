ALTER TABLE "runs" ADD COLUMN "repository_url" text;--> statement-breakpoint
ALTER TABLE "runs" ADD COLUMN "repository_ref" text;--> statement-breakpoint
ALTER TABLE "runs" ADD COLUMN "repository_sha" text;--> statement-breakpoint
ALTER TABLE "runs" ADD COLUMN "repository_credentials_secret" text;