"use client";
import { useWatch } from "react-hook-form";
import { FormNumber, FormSelect, FormText } from "@/components/forms/form";
import { SchedulePreview, useSchedulePreview } from "../schedule-preview";
import type { TriggerControl } from "./values";

/** Schedule settings with the server's live preview of the next fire times. */
export function ScheduleFields({ control }: { control: TriggerControl }) {
  const [cron, timezone] = useWatch({ control, name: ["cron", "timezone"] });
  const preview = useSchedulePreview(cron, timezone);
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
          hint="IANA name, e.g. Europe/Berlin."
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
