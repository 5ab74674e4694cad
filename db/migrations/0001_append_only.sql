-- History is append-only (CONVENTIONS habit 7): refuse UPDATE and DELETE on audit rows.
CREATE OR REPLACE FUNCTION sluice_refuse_change() RETURNS trigger AS $$
BEGIN
  RAISE EXCEPTION 'table % is append-only', TG_TABLE_NAME USING ERRCODE = 'insufficient_privilege';
END;
$$ LANGUAGE plpgsql;
--> statement-breakpoint
CREATE TRIGGER audit_events_append_only BEFORE UPDATE OR DELETE ON audit_events
  FOR EACH ROW EXECUTE FUNCTION sluice_refuse_change();
