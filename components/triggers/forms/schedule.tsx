"use client";
import { useWatch } from "react-hook-form";
import { FormNumber, FormSelect, FormText } from "@/components/forms/form";
import { SchedulePreview, useSchedulePreview } from "../schedule-preview";
import type { TriggerControl } from "./values";

/**
 * Schedule settings with the server's live preview of the next fire times. The zone is an
 * optional override: blank follows the workflow definition's `timezone` (and its changes).
 */
export function ScheduleFields({
  control,
  workflowId,
}: {
  control: TriggerControl;
  workflowId: string;
}) {
  const [cron, timezone] = useWatch({ control, name: ["cron", "timezone"] });
  const preview = useSchedulePreview(cron, timezone, workflowId);
  const workflowZone = preview.query.data?.workflowTimezone;
  return (
    <>
      <div className="form-row">
        <FormText
          control={control}
          name="cron"
          label="Cron expression"
          fallbackError={preview.errors.cron}
          hint="Five fields: minute hour day-of-month month day-of-week."
          mono
          spellCheck={false}
        />
        <FormText
          control={control}
          name="timezone"
          label="Time zone"
          fallbackError={preview.errors.timezone}
          placeholder={workflowZone ? `Workflow's zone (${workflowZone})` : "Workflow's zone"}
          hint={
            timezone.trim()
              ? `Overrides the workflow's zone${workflowZone ? ` (${workflowZone})` : ""}; clear it to follow the workflow.`
              : "Blank: follows the workflow's time zone. An IANA name (e.g. Europe/Berlin) overrides it."
          }
          spellCheck={false}
        />
      </div>
      <SchedulePreview preview={preview} />
      <div className="form-row">
        <FormSelect
          control={control}
          name="misfire"
          label="Misfire policy"
          options={[
            ["skip", "Skip missed times"],
            ["latest", "Run the latest missed time once"],
          ]}
        />
        <FormNumber
          control={control}
          name="catchUpWindowMinutes"
          label="Catch-up window (minutes)"
        />
        <FormSelect
          control={control}
          name="overlap"
          label="Overlap policy"
          options={[
            ["skip", "Skip while a run is active"],
            ["queue", "Queue after the active run"],
            ["allow", "Allow concurrent runs"],
          ]}
        />
      </div>
    </>
  );
}
