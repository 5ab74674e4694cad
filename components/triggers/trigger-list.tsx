"use client";
import { useMutation, useQuery, useQueryClient } from "@tanstack/react-query";
import Link from "next/link";
import { useState } from "react";
import { useRole } from "@/components/shell/role-context";
import { EmptyState, ErrorState, LoadingRows } from "@/components/ui/states";
import { RelativeTime } from "@/components/ui/time";
import { useToast } from "@/components/ui/toast";
import type { TriggerKind } from "@/lib/schemas/triggers";
import { useTRPC } from "@/lib/trpc/client";
import { RunLink, StatusBadge } from "./badges";
import { SecretDialog, type ShownSecret } from "./secret-dialog";
import { TriggerFormDialog } from "./trigger-form";
import { KIND_LABELS, triggerSummary } from "./trigger-model";
import switchStyles from "@/components/ui/switch.module.css";

export const TRIGGER_POLL_MS = 5_000;

export function TriggerList({ workflowId }: { workflowId: string }) {
  const trpc = useTRPC();
  const qc = useQueryClient();
  const toast = useToast();
  const { can } = useRole();
  const canEdit = can("editor");
  const list = useQuery({
    ...trpc.trigger.list.queryOptions({ workflowId }),
    refetchInterval: TRIGGER_POLL_MS,
  });
  const [creating, setCreating] = useState<TriggerKind | null>(null);
  const [shown, setShown] = useState<ShownSecret | null>(null);
  const setEnabled = useMutation(
    trpc.trigger.setEnabled.mutationOptions({
      onSuccess: (_d, v) => {
        toast(v.enabled ? "Trigger enabled" : "Trigger disabled");
        void qc.invalidateQueries({ queryKey: trpc.trigger.list.queryKey({ workflowId }) });
      },
      onError: (e) => toast(e.message, "error"),
    }),
  );

  const newButtons = canEdit ? (
    <div className="row" role="group" aria-label="New trigger">
      {(["webhook", "schedule", "event"] as const).map((k) => (
        <button
          key={k}
          type="button"
          className={k === "webhook" ? "btn btn-primary" : "btn"}
          onClick={() => setCreating(k)}
        >
          New {KIND_LABELS[k].toLowerCase()}
        </button>
      ))}
    </div>
  ) : null;

  return (
    <section className="card" aria-labelledby="triggers-h">
      <div className="card-head">
        <h2 id="triggers-h">Triggers</h2>
        {newButtons}
      </div>
      {list.isPending ? (
        <LoadingRows label="Loading triggers" />
      ) : list.error ? (
        <ErrorState message={list.error.message} onRetry={() => list.refetch()} />
      ) : list.data.length === 0 ? (
        <EmptyState title="No triggers yet">
          Triggers start this workflow&rsquo;s published version on their own. A{" "}
          <strong>webhook</strong> gives you a signed URL other services can call; a{" "}
          <strong>schedule</strong> runs it on a cron expression in a time zone; an{" "}
          <strong>event</strong> trigger runs it when an internal event (such as{" "}
          <code>run.completed</code> or one you emit) matches its pattern and filter.
          {canEdit ? "" : " Editors can add triggers."}
        </EmptyState>
      ) : (
        <table className="table">
          <thead>
            <tr>
              <th>Kind</th>
              <th>Name</th>
              <th>Enabled</th>
              <th>Summary</th>
              <th>Last fired</th>
              <th>Last run</th>
              <th>Last delivery</th>
            </tr>
          </thead>
          <tbody>
            {list.data.map((t) => (
              <tr key={t.id}>
                <td>
                  <span className="badge">{KIND_LABELS[t.kind as TriggerKind] ?? t.kind}</span>
                </td>
                <td>
                  <Link href={`/workflows/${workflowId}/triggers/${t.id}`}>{t.name}</Link>
                  {t.owner.problem ? (
                    <>
                      {" "}
                      <span className="badge badge-warn" title={t.owner.problem}>
                        owner gone
                      </span>
                    </>
                  ) : null}
                </td>
                <td>
                  {canEdit ? (
                    <label className={switchStyles.switch}>
                      <input
                        type="checkbox"
                        role="switch"
                        aria-label={`Enable ${t.name}`}
                        checked={t.enabled}
                        disabled={setEnabled.isPending}
                        onChange={(e) =>
                          setEnabled.mutate({ triggerId: t.id, enabled: e.target.checked })
                        }
                      />
                      <span />
                    </label>
                  ) : (
                    <span className={t.enabled ? "badge badge-ok" : "badge"}>
                      {t.enabled ? "enabled" : "disabled"}
                    </span>
                  )}
                </td>
                <td className="mono small" style={{ wordBreak: "break-all" }}>
                  {triggerSummary(t)}
                </td>
                <td>
                  <RelativeTime date={t.lastFiredAt} />
                </td>
                <td>
                  <RunLink runId={t.lastRunId} status={t.lastRunStatus} />
                </td>
                <td>
                  {t.lastDelivery ? (
                    <span title={t.lastDelivery.reason ?? undefined}>
                      <StatusBadge status={t.lastDelivery.status} />{" "}
                      <RelativeTime date={t.lastDelivery.receivedAt} />
                    </span>
                  ) : (
                    <span className="faint">—</span>
                  )}
                </td>
              </tr>
            ))}
          </tbody>
        </table>
      )}
      {creating ? (
        <TriggerFormDialog
          mode={{ type: "create", kind: creating, workflowId }}
          onClose={() => setCreating(null)}
          onSaved={(res) => {
            setCreating(null);
            void qc.invalidateQueries({ queryKey: trpc.trigger.list.queryKey({ workflowId }) });
            if (res.secret && res.trigger.url)
              setShown({
                title: "Webhook created",
                url: res.trigger.url,
                secret: res.secret,
                config: res.trigger.config,
              });
            else toast(`Created “${res.trigger.name}”`);
          }}
        />
      ) : null}
      <SecretDialog shown={shown} workflowId={workflowId} onClose={() => setShown(null)} />
    </section>
  );
}
