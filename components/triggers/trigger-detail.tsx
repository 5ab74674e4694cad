"use client";
import { useQuery } from "@tanstack/react-query";
import Link from "next/link";
import { useState } from "react";
import { useRole } from "@/components/shell/role-context";
import { ConfirmDialog } from "@/components/ui/dialog";
import { ErrorState, LoadingRows } from "@/components/ui/states";
import { useToast } from "@/components/ui/toast";
import type { TriggerKind } from "@/lib/schemas/triggers";
import { useTRPC } from "@/lib/trpc/client";
import { FireDialog } from "./fire-dialog";
import { RotateDialog } from "./rotate-dialog";
import { SecretDialog, type ShownSecret } from "./secret-dialog";
import { TestEventPanel } from "./test-event-panel";
import { TriggerDeliveries } from "./trigger-deliveries";
import { TriggerFacts } from "./trigger-facts";
import { TriggerFormDialog } from "./trigger-form";
import { TRIGGER_POLL_MS } from "./trigger-list";
import { KIND_LABELS, shownConfig } from "./trigger-model";
import { TriggerTicks } from "./trigger-ticks";
import { useTriggerActions } from "./use-trigger-actions";
import switchStyles from "@/components/ui/switch.module.css";

export function TriggerDetail({
  workflowId,
  triggerId,
}: {
  workflowId: string;
  triggerId: string;
}) {
  const trpc = useTRPC();
  const toast = useToast();
  const { can } = useRole();
  const canEdit = can("editor");
  const q = useQuery({
    ...trpc.trigger.get.queryOptions({ triggerId }),
    refetchInterval: TRIGGER_POLL_MS,
  });
  const { invalidate, setEnabled, takeOver, del } = useTriggerActions(workflowId, triggerId);
  const [editing, setEditing] = useState(false);
  const [firing, setFiring] = useState(false);
  const [rotating, setRotating] = useState(false);
  const [deleting, setDeleting] = useState(false);
  const [shown, setShown] = useState<ShownSecret | null>(null);

  if (q.isPending)
    return (
      <div className="card">
        <LoadingRows label="Loading trigger" />
      </div>
    );
  if (q.error)
    return (
      <div className="card">
        <ErrorState
          message={
            q.error.data?.code === "NOT_FOUND"
              ? "This trigger does not exist or was deleted."
              : q.error.message
          }
          onRetry={() => q.refetch()}
        />
      </div>
    );
  const t = q.data;
  const kind = t.kind as TriggerKind;
  const takeOverButton = (
    <button
      type="button"
      className="btn btn-sm"
      disabled={takeOver.isPending}
      onClick={() => takeOver.mutate({ triggerId })}
    >
      Take over
    </button>
  );

  return (
    <div className="stack">
      <p className="small" style={{ margin: 0 }}>
        <Link href={`/workflows/${workflowId}/triggers`}>← All triggers</Link>
      </p>
      <section className="card" aria-labelledby="trigger-h">
        <div className="card-head">
          <h2 id="trigger-h">
            <span className="badge">{KIND_LABELS[kind] ?? t.kind}</span> {t.name}
          </h2>
          {canEdit ? (
            <div className="row">
              <label className="row small" style={{ margin: 0, gap: 6 }}>
                <span className={switchStyles.switch}>
                  <input
                    type="checkbox"
                    role="switch"
                    aria-label={`Enable ${t.name}`}
                    checked={t.enabled}
                    disabled={setEnabled.isPending}
                    onChange={(e) => setEnabled.mutate({ triggerId, enabled: e.target.checked })}
                  />
                  <span />
                </span>
                {t.enabled ? "Enabled" : "Disabled"}
              </label>
              <button type="button" className="btn btn-primary" onClick={() => setFiring(true)}>
                Fire now
              </button>
              <button type="button" className="btn" onClick={() => setEditing(true)}>
                Edit
              </button>
              {kind === "webhook" ? (
                <button type="button" className="btn" onClick={() => setRotating(true)}>
                  Rotate secret
                </button>
              ) : null}
              <button type="button" className="btn btn-danger" onClick={() => setDeleting(true)}>
                Delete
              </button>
            </div>
          ) : (
            <span className={t.enabled ? "badge badge-ok" : "badge"}>
              {t.enabled ? "enabled" : "disabled"}
            </span>
          )}
        </div>
        <div className="card-body stack">
          {t.owner.problem ? (
            <div className="form-error" role="alert">
              <p style={{ margin: 0 }}>{t.owner.problem}.</p>
              {canEdit ? takeOverButton : null}
            </div>
          ) : null}
          <TriggerFacts t={t} takeOver={canEdit && !t.owner.problem ? takeOverButton : null} />
          <details>
            <summary>Configuration</summary>
            <pre aria-label="Configuration">
              {JSON.stringify(shownConfig(t.kind, t.config), null, 2)}
            </pre>
          </details>
          {t.sample ? (
            <details>
              <summary>Sample request</summary>
              <p className="section-note">Replace the placeholder with the secret you stored.</p>
              <pre>{t.sample}</pre>
            </details>
          ) : null}
        </div>
      </section>

      {kind === "event" && canEdit ? (
        <TestEventPanel pattern={String((t.config as { event?: string }).event ?? "")} />
      ) : null}

      {kind === "schedule" ? (
        <TriggerTicks triggerId={triggerId} />
      ) : (
        <TriggerDeliveries triggerId={triggerId} first={t.deliveries} />
      )}

      {editing ? (
        <TriggerFormDialog
          mode={{ type: "edit", trigger: t, workflowId }}
          onClose={() => setEditing(false)}
          onSaved={() => {
            setEditing(false);
            toast("Trigger saved");
            void invalidate();
          }}
        />
      ) : null}
      {firing ? (
        <FireDialog
          triggerId={triggerId}
          defaultInput={(t.config as { input?: unknown }).input}
          onClose={() => setFiring(false)}
          onFired={() => void invalidate()}
        />
      ) : null}
      {rotating ? (
        <RotateDialog
          triggerId={triggerId}
          onClose={() => setRotating(false)}
          onRotated={(res) => {
            setRotating(false);
            void invalidate();
            if (res.trigger.url)
              setShown({
                title: "Secret rotated",
                url: res.trigger.url,
                secret: res.secret,
                config: res.trigger.config,
              });
          }}
        />
      ) : null}
      <SecretDialog shown={shown} workflowId={workflowId} onClose={() => setShown(null)} />
      <ConfirmDialog
        open={deleting}
        title={`Delete “${t.name}”?`}
        body={
          kind === "webhook"
            ? "Its URL stops accepting requests at once. Past deliveries and runs stay in the history."
            : "It stops starting runs at once. Past runs stay in the history."
        }
        confirmLabel="Delete trigger"
        danger
        pending={del.isPending}
        error={del.error?.message}
        onConfirm={() => del.mutate({ triggerId })}
        onClose={() => {
          setDeleting(false);
          del.reset();
        }}
      />
    </div>
  );
}
