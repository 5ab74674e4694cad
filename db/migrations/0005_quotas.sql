CREATE TABLE "quota_usage" (
	"workspace_id" text NOT NULL,
	"metric" text NOT NULL,
	"scope_id" text DEFAULT '' NOT NULL,
	"period_start" timestamp with time zone NOT NULL,
	"used" bigint DEFAULT 0 NOT NULL,
	"updated_at" timestamp with time zone DEFAULT now() NOT NULL,
	CONSTRAINT "quota_usage_pk" PRIMARY KEY("workspace_id","metric","scope_id","period_start"),
	CONSTRAINT "quota_usage_metric" CHECK ("quota_usage"."metric" in ('runs', 'llm_tokens', 'webhook_requests')),
	CONSTRAINT "quota_usage_used" CHECK ("quota_usage"."used" >= 0)
);
--> statement-breakpoint
ALTER TABLE "quota_usage" ADD CONSTRAINT "quota_usage_workspace_id_workspaces_id_fk" FOREIGN KEY ("workspace_id") REFERENCES "public"."workspaces"("id") ON DELETE cascade ON UPDATE no action;--> statement-breakpoint
CREATE INDEX "quota_usage_period_idx" ON "quota_usage" USING btree ("workspace_id","period_start");