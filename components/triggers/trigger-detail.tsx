"use client";
import { useMutation, useQuery, useQueryClient } from "@tanstack/react-query";
import Link from "next/link";
import { useRouter } from "next/navigation";
import { Fragment, useState } from "react";
import { useRole } from "@/components/shell/role-context";
import { CopyButton } from "@/components/ui/copy-button";
import { ConfirmDialog, Dialog } from "@/components/ui/dialog";
import { Field } from "@/components/ui/field";
import { EmptyState, ErrorState, LoadingRows } from "@/components/ui/states";
import { LocalTime, RelativeTime } from "@/components/ui/time";
import { useToast } from "@/components/ui/toast";
import type { TriggerKind } from "@/lib/schemas/triggers";
import { useTRPC, useTRPCClient } from "@/lib/trpc/client";
import { RunLink, StatusBadge } from "./badges";
import { SecretDialog, type ShownSecret } from "./secret-dialog";
import { TriggerFormDialog } from "./trigger-form";
import { TestEventPanel } from "./test-event-panel";
import { TRIGGER_POLL_MS } from "./trigger-list";
import { describeScheduleZone } from "@/lib/triggers/schedule-zone";
import {
  GRACE_OPTIONS,
  KIND_LABELS,
  ownerLabel,
  parseJsonObject,
  prettyJson,
  shownConfig,
  triggerSummary,
} from "./trigger-model";
import switchStyles from "@/components/ui/switch.module.css";
import kv from "@/components/ui/kv.module.css";

export function TriggerDetail({
  workflowId,
  triggerId,
}: {
  workflowId: string;
  triggerId: string;
}) {
  const trpc = useTRPC();
  const qc = useQueryClient();
  const router = useRouter();
  const toast = useToast();
  const { can } = useRole();
  const canEdit = can("editor");
  const q = useQuery({
    ...trpc.trigger.get.queryOptions({ triggerId }),
    refetchInterval: TRIGGER_POLL_MS,
  });
  const invalidate = () =>
    Promise.all([
      qc.invalidateQueries({ queryKey: trpc.trigger.get.queryKey({ triggerId }) }),
      qc.invalidateQueries({ queryKey: trpc.trigger.list.queryKey({ workflowId }) }),
    ]);
  const [editing, setEditing] = useState(false);
  const [firing, setFiring] = useState(false);
  const [rotating, setRotating] = useState(false);
  const [deleting, setDeleting] = useState(false);
  const [shown, setShown] = useState<ShownSecret | null>(null);
  const setEnabled = useMutation(
    trpc.trigger.setEnabled.mutationOptions({
      onSuccess: () => void invalidate(),
      onError: (e) => toast(e.message, "error"),
    }),
  );
  const takeOver = useMutation(
    trpc.trigger.takeOver.mutationOptions({
      onSuccess: () => {
        toast("You own this trigger now: its runs count against you");
        void invalidate();
      },
      onError: (e) => toast(e.message, "error"),
    }),
  );
  const del = useMutation(
    trpc.trigger.delete.mutationOptions({
      onSuccess: () => {
        toast("Trigger deleted");
        void qc.invalidateQueries({ queryKey: trpc.trigger.list.queryKey({ workflowId }) });
        router.push(`/workflows/${workflowId}/triggers`);
      },
    }),
  );

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
          <dl className={kv.kv}>
            {kind === "webhook" && t.url ? (
              <>
                <dt>URL</dt>
                <dd className="row">
                  <code
                    className="mono"
                    data-testid="trigger-url"
                    style={{ wordBreak: "break-all" }}
                  >
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
              {canEdit && !t.owner.problem ? <> {takeOverButton}</> : null}
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
        <TicksTable triggerId={triggerId} />
      ) : (
        <DeliveriesTable triggerId={triggerId} first={t.deliveries} />
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

type Delivery = {
  id: string;
  receivedAt: Date | string;
  status: string;
  reason: string | null;
  httpStatus: number | null;
  runId: string | null;
  runStatus: string | null;
  request: Record<string, unknown> | null;
};

function DeliveriesTable({ triggerId, first }: { triggerId: string; first: Delivery[] }) {
  const [open, setOpen] = useState<Set<string>>(new Set());
  // The first page rides along with `trigger.get` (polled); older pages are loaded on demand.
  const client = useTRPCClient();
  const [more, setMore] = useState<Delivery[]>([]);
  const [nextBefore, setNextBefore] = useState<string | null | undefined>(undefined);
  const [loading, setLoading] = useState(false);
  const items: Delivery[] = [...first, ...more.filter((d) => !first.some((f) => f.id === d.id))];
  async function loadOlder() {
    const last = items.at(-1);
    const before = nextBefore ?? (last ? new Date(last.receivedAt).toISOString() : undefined);
    setLoading(true);
    try {
      const page = await client.trigger.deliveries.query({ triggerId, limit: 20, before });
      setMore((m) => [...m, ...page.items]);
      setNextBefore(page.nextBefore);
    } finally {
      setLoading(false);
    }
  }
  const toggle = (id: string) =>
    setOpen((s) => {
      const n = new Set(s);
      if (n.has(id)) n.delete(id);
      else n.add(id);
      return n;
    });
  return (
    <section className="card" aria-labelledby="deliveries-h">
      <div className="card-head">
        <h2 id="deliveries-h">Deliveries</h2>
      </div>
      {items.length === 0 ? (
        <EmptyState title="No deliveries yet">
          Every request or event that reaches this trigger is listed here, including rejected ones
          with the reason.
        </EmptyState>
      ) : (
        <table className="table">
          <thead>
            <tr>
              <th>Received</th>
              <th>Status</th>
              <th>HTTP</th>
              <th>Reason</th>
              <th>Run</th>
              <th>
                <span className="sr-only">Request</span>
              </th>
            </tr>
          </thead>
          <tbody>
            {items.map((d) => (
              <Fragment key={d.id}>
                <tr>
                  <td>
                    <RelativeTime date={d.receivedAt} />
                  </td>
                  <td>
                    <StatusBadge status={d.status} />
                  </td>
                  <td className="mono">{d.httpStatus ?? "—"}</td>
                  <td className="small">{d.reason ?? <span className="faint">—</span>}</td>
                  <td>
                    <RunLink runId={d.runId} status={d.runStatus} />
                  </td>
                  <td>
                    {d.request ? (
                      <button
                        type="button"
                        className="btn btn-sm"
                        aria-expanded={open.has(d.id)}
                        aria-controls={`req-${d.id}`}
                        onClick={() => toggle(d.id)}
                      >
                        {open.has(d.id) ? "Hide request" : "Show request"}
                      </button>
                    ) : null}
                  </td>
                </tr>
                {d.request && open.has(d.id) ? (
                  <tr id={`req-${d.id}`}>
                    <td colSpan={6}>
                      <pre aria-label="Request">{JSON.stringify(d.request, null, 2)}</pre>
                    </td>
                  </tr>
                ) : null}
              </Fragment>
            ))}
          </tbody>
        </table>
      )}
      {first.length >= 20 && nextBefore !== null ? (
        <div className="card-body">
          <button
            type="button"
            className="btn btn-sm"
            disabled={loading}
            onClick={() => void loadOlder()}
          >
            Load older deliveries
          </button>
        </div>
      ) : null}
    </section>
  );
}

function TicksTable({ triggerId }: { triggerId: string }) {
  const trpc = useTRPC();
  const q = useQuery({
    ...trpc.schedule.ticks.queryOptions({ triggerId, limit: 50 }),
    refetchInterval: TRIGGER_POLL_MS,
  });
  return (
    <section className="card" aria-labelledby="ticks-h">
      <div className="card-head">
        <h2 id="ticks-h">Ticks</h2>
      </div>
      {q.isPending ? (
        <LoadingRows label="Loading ticks" />
      ) : q.error ? (
        <ErrorState message={q.error.message} onRetry={() => q.refetch()} />
      ) : q.data.items.length === 0 ? (
        <EmptyState title="No ticks yet">
          Each scheduled time is listed here once it comes: fired, skipped (overlap), missed
          (downtime) or failed, with the reason.
        </EmptyState>
      ) : (
        <table className="table">
          <thead>
            <tr>
              <th>Scheduled for</th>
              <th>Status</th>
              <th>Reason</th>
              <th>Run</th>
            </tr>
          </thead>
          <tbody>
            {q.data.items.map((k) => (
              <tr key={new Date(k.tick).toISOString()}>
                <td>
                  <LocalTime date={k.tick} />
                </td>
                <td>
                  <StatusBadge status={k.status} />
                </td>
                <td className="small">{k.reason ?? <span className="faint">—</span>}</td>
                <td>
                  <RunLink runId={k.runId} />
                </td>
              </tr>
            ))}
          </tbody>
        </table>
      )}
    </section>
  );
}

function FireDialog({
  triggerId,
  defaultInput,
  onClose,
  onFired,
}: {
  triggerId: string;
  defaultInput: unknown;
  onClose: () => void;
  onFired: () => void;
}) {
  const trpc = useTRPC();
  const [text, setText] = useState(() => prettyJson(defaultInput));
  const [error, setError] = useState("");
  const fire = useMutation(trpc.trigger.fire.mutationOptions({ onSuccess: onFired }));
  return (
    <Dialog
      open
      onClose={onClose}
      title="Fire now"
      footer={
        <>
          <button type="button" className="btn" onClick={onClose}>
            {fire.data ? "Close" : "Cancel"}
          </button>
          {fire.data ? null : (
            <button
              type="button"
              className="btn btn-primary"
              disabled={fire.isPending}
              onClick={() => {
                const parsed = parseJsonObject(text);
                if (!parsed.ok) return setError(parsed.error);
                setError("");
                fire.mutate({ triggerId, input: parsed.value });
              }}
            >
              Start run
            </button>
          )}
        </>
      }
    >
      {fire.data ? (
        <div className="form-ok" role="status">
          Run started: <Link href={`/runs/${fire.data.runId}`}>open run {fire.data.runId}</Link>
        </div>
      ) : (
        <div className="stack">
          <Field
            label="Run input (JSON object, optional)"
            error={error}
            hint="Empty uses the trigger's static input."
            render={(p) => (
              <textarea
                {...p}
                value={text}
                spellCheck={false}
                onChange={(e) => setText(e.target.value)}
              />
            )}
          />
          {fire.error ? (
            <div className="form-error" role="alert">
              {fire.error.message}
            </div>
          ) : null}
        </div>
      )}
    </Dialog>
  );
}

function RotateDialog({
  triggerId,
  onClose,
  onRotated,
}: {
  triggerId: string;
  onClose: () => void;
  onRotated: (res: { trigger: { url: string | null; config: unknown }; secret: string }) => void;
}) {
  const trpc = useTRPC();
  const [grace, setGrace] = useState("60");
  const rotate = useMutation(trpc.trigger.rotateSecret.mutationOptions({ onSuccess: onRotated }));
  return (
    <Dialog
      open
      onClose={onClose}
      title="Rotate the signing secret"
      footer={
        <>
          <button type="button" className="btn" onClick={onClose}>
            Cancel
          </button>
          <button
            type="button"
            className="btn btn-primary"
            disabled={rotate.isPending}
            onClick={() => rotate.mutate({ triggerId, graceMinutes: Number(grace) })}
          >
            Rotate secret
          </button>
        </>
      }
    >
      <div className="stack">
        <p style={{ margin: 0 }}>
          A new secret is generated and shown once. During the grace period requests signed with the
          old secret are still accepted, so senders can switch without dropped deliveries.
        </p>
        <Field
          label="Grace period"
          render={(p) => (
            <select {...p} value={grace} onChange={(e) => setGrace(e.target.value)}>
              {GRACE_OPTIONS.map((o) => (
                <option key={o.minutes} value={o.minutes}>
                  {o.label}
                </option>
              ))}
            </select>
          )}
        />
        {rotate.error ? (
          <div className="form-error" role="alert">
            {rotate.error.message}
          </div>
        ) : null}
      </div>
    </Dialog>
  );
}
