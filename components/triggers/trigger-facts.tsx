"use client";
import type { ReactNode } from "react";
import { CopyButton } from "@/components/ui/copy-button";
import { RelativeTime } from "@/components/ui/time";
import type { TriggerKind } from "@/lib/schemas/triggers";
import { describeScheduleZone, type ScheduleZone } from "@/lib/triggers/schedule-zone";
import { RunLink } from "./badges";
import { ownerLabel, triggerSummary } from "./trigger-model";
import kv from "@/components/ui/kv.module.css";

/** The trigger fields the facts list shows (a subset of `trigger.get`'s answer). */
export interface TriggerFactsData {
  kind: string;
  url: string | null;
  config: unknown;
  schedule?: ScheduleZone | null;
  hasPreviousSecret: boolean;
  previousSecretExpiresAt: Date | string | null;
  owner: Parameters<typeof ownerLabel>[0];
  lastFiredAt: Date | string | null;
  lastRunId: string | null;
  lastRunStatus: string | null;
}

/**
 * The trigger's key facts: its URL (webhook) or schedule/pattern, time zone, owner and last
 * firing. `takeOver` is the take-over button, shown next to the owner when given.
 */
export function TriggerFacts({ t, takeOver }: { t: TriggerFactsData; takeOver: ReactNode }) {
  const kind = t.kind as TriggerKind;
  return (
    <dl className={kv.kv}>
      {kind === "webhook" && t.url ? (
        <>
          <dt>URL</dt>
          <dd className="row">
            <code className="mono" data-testid="trigger-url" style={{ wordBreak: "break-all" }}>
              {t.url}
            </code>
            <CopyButton value={t.url} label="Copy URL" />
          </dd>
          {t.hasPreviousSecret ? (
            <>
              <dt>Previous secret</dt>
              <dd>
                still accepted; expires <RelativeTime date={t.previousSecretExpiresAt} />
              </dd>
            </>
          ) : null}
        </>
      ) : (
        <>
          <dt>{kind === "schedule" ? "Schedule" : "Event pattern"}</dt>
          <dd className="mono">{triggerSummary(t)}</dd>
        </>
      )}
      {kind === "schedule" && t.schedule ? (
        <>
          <dt>Time zone</dt>
          <dd data-testid="trigger-timezone">{describeScheduleZone(t.schedule)}</dd>
        </>
      ) : null}
      <dt>Owner</dt>
      <dd data-testid="trigger-owner">
        {ownerLabel(t.owner)}
        {takeOver ? <> {takeOver}</> : null}
      </dd>
      <dt>Last fired</dt>
      <dd>
        <RelativeTime date={t.lastFiredAt} />
      </dd>
      <dt>Last run</dt>
      <dd>
        <RunLink runId={t.lastRunId} status={t.lastRunStatus} />
      </dd>
    </dl>
  );
}
