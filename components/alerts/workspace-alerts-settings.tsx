"use client";
import { useMutation, useQuery, useQueryClient } from "@tanstack/react-query";
import { useState } from "react";
import { useRole } from "@/components/shell/role-context";
import { Field } from "@/components/ui/field";
import { useToast } from "@/components/ui/toast";
import { UnsavedBadge, UnsavedChangesGuard } from "@/components/ui/unsaved-changes";
import type { WorkspaceAlertSettings } from "@/lib/schemas/alerts";
import { useTRPC } from "@/lib/trpc/client";
import { SaveIssues, saveIssues } from "./save-issues";
import { ChannelsEditor, fromDrafts, toDrafts, type ChannelDraft } from "./channels-editor";

/**
 * The workspace's alert defaults: where alerts of workflows without their own channels go, the
 * rate-limit window, and when a waiting gate or a rejecting trigger alerts. Admins change them.
 */
export function WorkspaceAlertsSettings() {
  const trpc = useTRPC();
  const q = useQuery(trpc.alert.workspace.queryOptions());
  if (!q.data) return null;
  return <AlertsForm key={JSON.stringify(q.data)} saved={q.data} />;
}

const num = (v: number | null) => (v === null ? "" : String(v));

function AlertsForm({ saved }: { saved: WorkspaceAlertSettings }) {
  const trpc = useTRPC();
  const qc = useQueryClient();
  const toast = useToast();
  const isAdmin = useRole().can("admin");
  const [channels, setChannels] = useState<ChannelDraft[]>(toDrafts(saved.channels));
  const [windowMinutes, setWindow] = useState(String(saved.windowMinutes));
  const [gateAge, setGateAge] = useState(num(saved.gateAgeHours));
  const [rejects, setRejects] = useState(num(saved.rejectThreshold));
  const save = useMutation(
    trpc.alert.updateWorkspace.mutationOptions({
      onSuccess: () => {
        toast("Alert settings saved");
        void qc.invalidateQueries({ queryKey: trpc.alert.workspace.queryKey() });
      },
    }),
  );
  const dirty =
    JSON.stringify(channels) !== JSON.stringify(toDrafts(saved.channels)) ||
    windowMinutes !== String(saved.windowMinutes) ||
    gateAge !== num(saved.gateAgeHours) ||
    rejects !== num(saved.rejectThreshold);
  const { byField } = saveIssues(save.error);
  const orNull = (t: string) => (t.trim() === "" ? null : Number(t));
  return (
    <section className="card" aria-labelledby="alerts-h">
      <div className="card-head">
        <h2 id="alerts-h">Alerts</h2>
      </div>
      <p className="section-note">
        Failed runs, gates waiting too long and triggers whose deliveries keep being rejected send
        an alert — at most one per workflow (trigger, for rejects) and kind per window; the next one
        says how many were suppressed.
      </p>
      <form
        noValidate
        className="card-body form"
        onSubmit={(e) => {
          e.preventDefault();
          save.mutate({
            channels: fromDrafts(channels),
            windowMinutes: Number(windowMinutes),
            gateAgeHours: orNull(gateAge),
            rejectThreshold: orNull(rejects),
          });
        }}
      >
        <ChannelsEditor
          label="Default channels"
          channels={channels}
          onChange={setChannels}
          disabled={!isAdmin}
          errors={byField}
        />
        <div className="row" style={{ gap: 16, flexWrap: "wrap", alignItems: "flex-start" }}>
          <Field
            label="Window (minutes)"
            type="number"
            min={1}
            value={windowMinutes}
            disabled={!isAdmin}
            onChange={(e) => setWindow(e.target.value)}
            hint="One alert per workflow and kind in this window."
            error={byField.windowMinutes}
          />
          <Field
            label="Gate age (hours)"
            type="number"
            min={1}
            value={gateAge}
            disabled={!isAdmin}
            onChange={(e) => setGateAge(e.target.value)}
            hint="An approval or task waiting longer alerts. Blank: never."
            error={byField.gateAgeHours}
          />
          <Field
            label="Rejected deliveries"
            type="number"
            min={1}
            value={rejects}
            disabled={!isAdmin}
            onChange={(e) => setRejects(e.target.value)}
            hint="This many rejects of one trigger in the window alert. Blank: never."
            error={byField.rejectThreshold}
          />
        </div>
        <SaveIssues error={save.error} />
        {isAdmin ? (
          <div className="row">
            <button type="submit" className="btn btn-primary" disabled={!dirty || save.isPending}>
              Save alert settings
            </button>
            <UnsavedBadge dirty={dirty} />
          </div>
        ) : null}
        <UnsavedChangesGuard dirty={isAdmin && dirty} what="alert settings" />
      </form>
    </section>
  );
}
