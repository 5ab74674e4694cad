CREATE TABLE "mcp_tool_lists" (
	"workspace_id" text NOT NULL,
	"server" text NOT NULL,
	"url" text NOT NULL,
	"tools" jsonb NOT NULL,
	"listed_at" timestamp with time zone DEFAULT now() NOT NULL,
	CONSTRAINT "mcp_tool_lists_workspace_id_server_pk" PRIMARY KEY("workspace_id","server")
);
--> statement-breakpoint
ALTER TABLE "mcp_tool_lists" ADD CONSTRAINT "mcp_tool_lists_workspace_id_workspaces_id_fk" FOREIGN KEY ("workspace_id") REFERENCES "public"."workspaces"("id") ON DELETE cascade ON UPDATE no action;