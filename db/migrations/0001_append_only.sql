-- History is append-only (CONVENTIONS habit 7): refuse UPDATE and DELETE on history tables.
-- Rows still disappear with their workspace (ON DELETE CASCADE from workspaces is exempt
-- through pg_trigger_depth: a cascade runs the trigger at depth > 0) and through retention,
-- which deletes whole runs via cascade as well.
CREATE OR REPLACE FUNCTION sluice_refuse_change() RETURNS trigger AS $$
BEGIN
  IF pg_trigger_depth() > 1 THEN
    RETURN OLD;
  END IF;
  RAISE EXCEPTION 'table % is append-only', TG_TABLE_NAME USING ERRCODE = 'insufficient_privilege';
END;
$$ LANGUAGE plpgsql;
--> statement-breakpoint
CREATE TRIGGER audit_events_append_only BEFORE UPDATE OR DELETE ON audit_events
  FOR EACH ROW EXECUTE FUNCTION sluice_refuse_change();
--> statement-breakpoint
CREATE TRIGGER workflow_versions_append_only BEFORE UPDATE OR DELETE ON workflow_versions
  FOR EACH ROW EXECUTE FUNCTION sluice_refuse_change();
--> statement-breakpoint
CREATE TRIGGER run_events_append_only BEFORE UPDATE OR DELETE ON run_events
  FOR EACH ROW EXECUTE FUNCTION sluice_refuse_change();
