"use client";
import type { AlertChannel } from "@/lib/schemas/alerts";

export type ChannelDraft = { kind: AlertChannel["kind"]; value: string };

const LABELS: Record<ChannelDraft["kind"], { kind: string; value: string; hint: string }> = {
  slack: {
    kind: "Slack",
    value: "Secret with the webhook URL",
    hint: "The name of a workspace secret (Settings → Secrets) holding the incoming-webhook URL.",
  },
  webhook: { kind: "Webhook", value: "URL", hint: "Receives a JSON POST (docs/operations.md)." },
  email: { kind: "Email", value: "Address", hint: "Sent through the workspace's SMTP server." },
};

export function toDrafts(channels: readonly AlertChannel[]): ChannelDraft[] {
  return channels.map((c) =>
    c.kind === "slack"
      ? { kind: "slack", value: c.secret }
      : c.kind === "email"
        ? { kind: "email", value: c.to }
        : { kind: "webhook", value: c.url ?? c.secret ?? "" },
  );
}

export function fromDrafts(drafts: readonly ChannelDraft[]): AlertChannel[] {
  return drafts.map((d) =>
    d.kind === "slack"
      ? { kind: "slack", secret: d.value.trim() }
      : d.kind === "email"
        ? { kind: "email", to: d.value.trim() }
        : /^https?:\/\//i.test(d.value.trim())
          ? { kind: "webhook", url: d.value.trim() }
          : { kind: "webhook", secret: d.value.trim() },
  );
}

/** The list of places an alert goes: kind and target per row, added and removed in place. */
export function ChannelsEditor({
  label,
  channels,
  onChange,
  disabled,
  errors,
}: {
  label: string;
  channels: ChannelDraft[];
  onChange: (next: ChannelDraft[]) => void;
  disabled?: boolean;
  /** Field errors keyed `channels.<i>.<field>` (mapIssues). */
  errors?: Record<string, string>;
}) {
  const set = (i: number, patch: Partial<ChannelDraft>) =>
    onChange(channels.map((c, j) => (j === i ? { ...c, ...patch } : c)));
  const errorAt = (i: number) =>
    Object.entries(errors ?? {}).find(([k]) => k.startsWith(`channels.${i}`))?.[1];
  return (
    <fieldset className="stack" disabled={disabled} style={{ border: 0, padding: 0, margin: 0 }}>
      <legend className="small" style={{ fontWeight: 600 }}>
        {label}
      </legend>
      {channels.length === 0 ? <p className="muted small">No channels.</p> : null}
      <ul className="stack" style={{ listStyle: "none", padding: 0, margin: 0 }}>
        {channels.map((c, i) => (
          <li
            key={i}
            className="row"
            style={{ gap: 8, alignItems: "flex-start", flexWrap: "wrap" }}
          >
            <div className="field">
              <label htmlFor={`ch-kind-${i}`}>Channel {i + 1} kind</label>
              <select
                id={`ch-kind-${i}`}
                value={c.kind}
                onChange={(e) => set(i, { kind: e.target.value as ChannelDraft["kind"] })}
              >
                {(Object.keys(LABELS) as ChannelDraft["kind"][]).map((k) => (
                  <option key={k} value={k}>
                    {LABELS[k].kind}
                  </option>
                ))}
              </select>
            </div>
            <div className="field" style={{ flex: 1, minWidth: 220 }}>
              <label htmlFor={`ch-value-${i}`}>
                Channel {i + 1} {LABELS[c.kind].value.toLowerCase()}
              </label>
              <input
                id={`ch-value-${i}`}
                type="text"
                value={c.value}
                aria-invalid={errorAt(i) ? true : undefined}
                aria-describedby={`ch-hint-${i}`}
                onChange={(e) => set(i, { value: e.target.value })}
              />
              <div id={`ch-hint-${i}`} className={errorAt(i) ? "error" : "hint"}>
                {errorAt(i) ?? LABELS[c.kind].hint}
              </div>
            </div>
            <button
              type="button"
              className="btn"
              style={{ alignSelf: "center" }}
              aria-label={`Remove channel ${i + 1}`}
              onClick={() => onChange(channels.filter((_, j) => j !== i))}
            >
              Remove
            </button>
          </li>
        ))}
      </ul>
      {channels.length < 10 ? (
        <div>
          <button
            type="button"
            className="btn"
            onClick={() => onChange([...channels, { kind: "slack", value: "" }])}
          >
            Add channel
          </button>
        </div>
      ) : null}
    </fieldset>
  );
}
