-- Schedules now inherit the workflow definition's timezone unless config.timezone is set
-- (present = an explicit override). Every existing schedule fired in its own zone, UTC when the
-- key was missing (the old schema default): write that zone down so no schedule's fire times move.
UPDATE "triggers"
SET "config" = jsonb_set("config", '{timezone}', '"UTC"'::jsonb, true)
WHERE "kind" = 'schedule' AND NOT ("config" ? 'timezone');
