CREATE TABLE "mcp_tool_lists" (
	"workspace_id" text NOT NULL,
	"server" text NOT NULL,
	"url" text NOT NULL,
	"tools" jsonb NOT NULL,
	"listed_at" timestamp with time zone DEFAULT now() NOT NULL,
	CONSTRAINT "mcp_tool_lists_workspace_id_server_pk" PRIMARY KEY("workspace_id","server")
);
--> statement-breakpoint
ALTER TABLE "approval_decisions" ADD COLUMN "form_data" jsonb;--> statement-breakpoint
ALTER TABLE "approvals" ADD COLUMN "form" jsonb;--> statement-breakpoint
ALTER TABLE "approvals" ADD COLUMN "priority" text DEFAULT 'normal' NOT NULL;--> statement-breakpoint
ALTER TABLE "approvals" ADD COLUMN "due_at" timestamp with time zone;--> statement-breakpoint
ALTER TABLE "mcp_tool_lists" ADD CONSTRAINT "mcp_tool_lists_workspace_id_workspaces_id_fk" FOREIGN KEY ("workspace_id") REFERENCES "public"."workspaces"("id") ON DELETE cascade ON UPDATE no action;--> statement-breakpoint
CREATE INDEX "approvals_workspace_status_due_idx" ON "approvals" USING btree ("workspace_id","status","due_at");