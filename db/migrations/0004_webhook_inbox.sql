CREATE TABLE "webhook_inbox" (
	"id" text PRIMARY KEY NOT NULL,
	"workspace_id" text NOT NULL,
	"trigger_id" text NOT NULL,
	"delivery_key" text,
	"run_id" text NOT NULL,
	"status" text DEFAULT 'accepted' NOT NULL,
	"input" jsonb,
	"payload" jsonb,
	"request" jsonb NOT NULL,
	"error" text,
	"created_at" timestamp with time zone DEFAULT now() NOT NULL,
	"admitted_at" timestamp with time zone,
	CONSTRAINT "webhook_inbox_status" CHECK ("webhook_inbox"."status" in ('accepted', 'admitted', 'failed'))
);
--> statement-breakpoint
ALTER TABLE "webhook_inbox" ADD CONSTRAINT "webhook_inbox_workspace_id_workspaces_id_fk" FOREIGN KEY ("workspace_id") REFERENCES "public"."workspaces"("id") ON DELETE cascade ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "webhook_inbox" ADD CONSTRAINT "webhook_inbox_trigger_id_triggers_id_fk" FOREIGN KEY ("trigger_id") REFERENCES "public"."triggers"("id") ON DELETE cascade ON UPDATE no action;--> statement-breakpoint
CREATE UNIQUE INDEX "webhook_inbox_delivery_key" ON "webhook_inbox" USING btree ("trigger_id","delivery_key");--> statement-breakpoint
CREATE INDEX "webhook_inbox_pending_idx" ON "webhook_inbox" USING btree ("created_at") WHERE "webhook_inbox"."status" = 'accepted';--> statement-breakpoint
CREATE INDEX "webhook_inbox_workspace_idx" ON "webhook_inbox" USING btree ("workspace_id","created_at");--> statement-breakpoint
CREATE INDEX "webhook_inbox_run_idx" ON "webhook_inbox" USING btree ("run_id");