"use client";
import { useMutation, useQuery, useQueryClient } from "@tanstack/react-query";
import { useState } from "react";
import { useRole } from "@/components/shell/role-context";
import { Field } from "@/components/ui/field";
import { useToast } from "@/components/ui/toast";
import type { AlertChannel } from "@/lib/schemas/alerts";
import { useTRPC } from "@/lib/trpc/client";
import { SaveIssues, saveIssues } from "./save-issues";
import { ChannelsEditor, fromDrafts, toDrafts, type ChannelDraft } from "./channels-editor";

type Saved = {
  channels: AlertChannel[] | null;
  errorWorkflowId: string | null;
  workspaceChannels: AlertChannel[];
};

/** A workflow's alert channels (or the workspace's) and its error workflow; editors change them. */
export function WorkflowAlertsCard({ workflowId }: { workflowId: string }) {
  const trpc = useTRPC();
  const q = useQuery(trpc.alert.workflow.queryOptions({ workflowId }));
  if (!q.data) return null;
  return <Form key={JSON.stringify(q.data)} workflowId={workflowId} saved={q.data} />;
}

function Form({ workflowId, saved }: { workflowId: string; saved: Saved }) {
  const trpc = useTRPC();
  const qc = useQueryClient();
  const toast = useToast();
  const canEdit = useRole().can("editor");
  const [inherit, setInherit] = useState(saved.channels === null);
  const [channels, setChannels] = useState<ChannelDraft[]>(toDrafts(saved.channels ?? []));
  const [handler, setHandler] = useState(saved.errorWorkflowId ?? "");
  const workflows = useQuery(trpc.workflow.list.queryOptions({ limit: 200 }));
  const save = useMutation(
    trpc.alert.updateWorkflow.mutationOptions({
      onSuccess: () => {
        toast("Alert settings saved");
        void qc.invalidateQueries({ queryKey: trpc.alert.workflow.queryKey({ workflowId }) });
      },
    }),
  );
  const { byField } = saveIssues(save.error);
  const others = (workflows.data?.items ?? []).filter((w) => w.id !== workflowId);
  return (
    <section className="card" aria-labelledby="wf-alerts-h">
      <div className="card-head">
        <h2 id="wf-alerts-h">Alerts and error workflow</h2>
      </div>
      <form
        noValidate
        className="card-body form"
        onSubmit={(e) => {
          e.preventDefault();
          save.mutate({
            workflowId,
            channels: inherit ? null : fromDrafts(channels),
            errorWorkflowId: handler || null,
          });
        }}
      >
        <label className="row small" style={{ margin: 0, fontWeight: 400 }}>
          <input
            type="checkbox"
            checked={inherit}
            disabled={!canEdit}
            onChange={(e) => setInherit(e.target.checked)}
          />
          Use the workspace&apos;s alert channels
          {inherit ? ` (${saved.workspaceChannels.length} set in Settings → Alerts)` : ""}
        </label>
        {inherit ? null : (
          <ChannelsEditor
            label="This workflow's channels"
            channels={channels}
            onChange={setChannels}
            disabled={!canEdit}
            errors={byField}
          />
        )}
        <Field
          label="Error workflow"
          error={byField.errorWorkflowId}
          hint="Started with the failed run's context (runId, workflowId, workflowName, version, failedStep, error, input) when a run fails."
          render={(p) => (
            <select
              {...p}
              value={handler}
              disabled={!canEdit}
              onChange={(e) => setHandler(e.target.value)}
            >
              <option value="">None</option>
              {others.map((w) => (
                <option key={w.id} value={w.id}>
                  {w.name}
                </option>
              ))}
            </select>
          )}
        />
        <SaveIssues error={save.error} />
        {canEdit ? (
          <div>
            <button className="btn btn-primary" type="submit" disabled={save.isPending}>
              Save alert settings
            </button>
          </div>
        ) : null}
      </form>
    </section>
  );
}
