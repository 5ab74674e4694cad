CREATE TABLE "history_chain" (
	"workspace_id" text NOT NULL,
	"seq" bigint NOT NULL,
	"kind" text NOT NULL,
	"row_id" text NOT NULL,
	"content_hash" text NOT NULL,
	"prev_hash" text NOT NULL,
	"hash" text NOT NULL,
	"created_at" timestamp with time zone DEFAULT now() NOT NULL,
	CONSTRAINT "history_chain_workspace_id_seq_pk" PRIMARY KEY("workspace_id","seq")
);
--> statement-breakpoint
CREATE TABLE "history_chain_heads" (
	"workspace_id" text PRIMARY KEY NOT NULL,
	"seq" bigint NOT NULL,
	"hash" text NOT NULL,
	"updated_at" timestamp with time zone DEFAULT now() NOT NULL
);
--> statement-breakpoint
ALTER TABLE "proposals" ADD COLUMN "rule_verdicts" jsonb DEFAULT '[]'::jsonb NOT NULL;--> statement-breakpoint
ALTER TABLE "history_chain" ADD CONSTRAINT "history_chain_workspace_id_workspaces_id_fk" FOREIGN KEY ("workspace_id") REFERENCES "public"."workspaces"("id") ON DELETE cascade ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "history_chain_heads" ADD CONSTRAINT "history_chain_heads_workspace_id_workspaces_id_fk" FOREIGN KEY ("workspace_id") REFERENCES "public"."workspaces"("id") ON DELETE cascade ON UPDATE no action;--> statement-breakpoint
CREATE UNIQUE INDEX "history_chain_row_key" ON "history_chain" USING btree ("workspace_id","kind","row_id");--> statement-breakpoint
-- The chain is history too (CONVENTIONS habit 7): no UPDATE or DELETE, except by a workspace's cascade.
CREATE TRIGGER history_chain_append_only BEFORE UPDATE OR DELETE ON history_chain
  FOR EACH ROW EXECUTE FUNCTION sluice_refuse_change();
