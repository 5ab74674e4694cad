"use client";
import { useQuery } from "@tanstack/react-query";
import { useState } from "react";
import { Spinner } from "@/components/ui/states";
import { useDebounced } from "@/components/ui/use-debounced";
import { useTRPC } from "@/lib/trpc/client";
import { issuesOf, mapIssues } from "@/components/forms/issues";
import { describeScheduleZone } from "@/lib/triggers/schedule-zone";
import { dstNote, formatOffset } from "./trigger-model";
import styles from "./schedule-preview.module.css";

export const PREVIEW_COUNT = 10;

/**
 * The server's preview of a cron expression (same compiled schedule as the scheduler), debounced
 * while typing. A blank zone previews in the workflow's zone, as the schedule would fire. Errors
 * come back per field (`cron` / `timezone`) for the form to show in place.
 */
export function useSchedulePreview(cron: string, timezone: string, workflowId: string) {
  const trpc = useTRPC();
  const input = useDebounced(
    { cron: cron.trim(), ...(timezone.trim() ? { timezone: timezone.trim() } : {}), workflowId },
    350,
  );
  const enabled = input.cron.length > 0;
  // Where the list starts (ISO instant; null = now): a date to look ahead to (a DST change months
  // away), then "Later" pages on from the last listed time.
  const [from, setFrom] = useState<string | null>(null);
  const q = useQuery({
    ...trpc.schedule.preview.queryOptions({
      ...input,
      count: PREVIEW_COUNT,
      ...(from ? { from } : {}),
    }),
    enabled,
    retry: false,
    placeholderData: (prev) => prev,
  });
  const errors: Record<string, string> = q.error
    ? { ...mapIssues(issuesOf(q.error), { within: [["config"], []] }).byField }
    : {};
  if (q.error && !errors.cron && !errors.timezone) errors.cron = q.error.message;
  const isStale = input.cron !== cron.trim() || (input.timezone ?? "") !== timezone.trim();
  return { query: q, errors, enabled, isStale, from, setFrom };
}

export function SchedulePreview({ preview }: { preview: ReturnType<typeof useSchedulePreview> }) {
  const { query: q, enabled, isStale, from, setFrom } = preview;
  return (
    <section aria-labelledby="preview-h" className="stack" style={{ gap: 6 }}>
      <div className="row">
        <strong id="preview-h">Next {PREVIEW_COUNT} fire times</strong>
        {q.isFetching || isStale ? <Spinner label="Updating preview" /> : null}
      </div>
      {enabled ? (
        <div className="row" style={{ gap: 8, flexWrap: "wrap" }}>
          <label className="small">
            From (UTC date){" "}
            <input
              type="date"
              aria-label="Preview from (UTC date)"
              value={from ? from.slice(0, 10) : ""}
              onChange={(e) =>
                setFrom(
                  e.target.value ? new Date(`${e.target.value}T00:00:00Z`).toISOString() : null,
                )
              }
            />
          </label>
          <button
            type="button"
            className="btn btn-sm"
            disabled={!q.data?.nextFrom}
            onClick={() => q.data?.nextFrom && setFrom(q.data.nextFrom)}
          >
            Later
          </button>
          {from ? (
            <button type="button" className="btn btn-sm" onClick={() => setFrom(null)}>
              From now
            </button>
          ) : null}
        </div>
      ) : null}
      {!enabled ? (
        <p className="section-note">Type a cron expression to see when it fires.</p>
      ) : q.error ? (
        <p className="section-note">No preview until the schedule is valid.</p>
      ) : q.data ? (
        <>
          {!q.data.minInterval.ok ? (
            <div className="form-error" role="alert">
              {q.data.minInterval.message ??
                `Fires more often than every ${q.data.minInterval.minimumSeconds} s`}
            </div>
          ) : null}
          <ol className={styles.times} aria-label="Next fire times">
            {q.data.times.map((t) => {
              const note = dstNote(t);
              return (
                <li key={t.at} className={note ? styles[note.kind] : undefined}>
                  <span className="mono">{t.local}</span>{" "}
                  <span className="faint small">{formatOffset(t.offsetMinutes)}</span>{" "}
                  {note ? (
                    <span
                      className={note.kind === "gap" ? "badge badge-warn" : "badge badge-info"}
                      title={note.text}
                    >
                      {note.kind === "gap" ? "DST gap" : "DST repeat"}
                      <span className="sr-only">: {note.text}</span>
                    </span>
                  ) : null}
                  {note ? <div className="small muted">{note.text}</div> : null}
                </li>
              );
            })}
          </ol>
          <p className="section-note">
            Times in{" "}
            {describeScheduleZone({
              timezone: q.data.timezone,
              source: q.data.timezoneSource,
              workflowTimezone: q.data.workflowTimezone,
            })}
            .{" "}
            {q.data.dstBehaviour === "fixed-time"
              ? "Fixed-time schedule: on DST changes a missing time fires at the jump and a repeated time fires once."
              : "Interval schedule: on DST changes missing times are skipped and repeated times fire twice."}
          </p>
        </>
      ) : null}
    </section>
  );
}
