"use client";
import { useMutation } from "@tanstack/react-query";
import { useState, type ReactNode } from "react";
import { Dialog } from "@/components/ui/dialog";
import { Field } from "@/components/ui/field";
import {
  CreateTriggerInput,
  configSchemaFor,
  SIGNATURE_PRESETS,
  WEBHOOK_METHODS,
  type TriggerKind,
} from "@/lib/schemas/triggers";
import { useTRPC } from "@/lib/trpc/client";
import { SchedulePreview, useSchedulePreview } from "./schedule-preview";
import { TestEventPanel } from "./test-event-panel";
import {
  issuesByField,
  issuesOf,
  KIND_LABELS,
  mappingToRows,
  parseJsonObject,
  prettyJson,
  rowsToMapping,
  type MappingRow,
} from "./trigger-model";

export interface EditableTrigger {
  id: string;
  kind: string;
  name: string;
  config: unknown;
}

type Mode =
  | { type: "create"; kind: TriggerKind; workflowId: string }
  | { type: "edit"; trigger: EditableTrigger };

export interface SavedTrigger {
  trigger: { id: string; name: string; url: string | null; config: unknown };
  secret: string | null;
}

const PRESET_LABELS: Record<(typeof SIGNATURE_PRESETS)[number], string> = {
  hmac: "Generic HMAC-SHA256",
  github: "GitHub (X-Hub-Signature-256)",
  stripe: "Stripe (Stripe-Signature)",
  standard: "Standard Webhooks",
  none: "None (anyone with the URL)",
};

/** Every form value as text; converted to the config shape on submit. */
function initialState(kind: TriggerKind, name: string, config: unknown) {
  const c = (config ?? {}) as Record<string, unknown>;
  const v = (c.verification ?? {}) as Record<string, unknown>;
  const rl = (c.rateLimit ?? {}) as Record<string, unknown>;
  const s = (x: unknown, d = "") => (x === undefined || x === null ? d : String(x));
  return {
    name,
    path: "",
    method: s(c.method, "POST"),
    preset: s(v.preset, "hmac"),
    header: s(v.header, "X-Signature"),
    prefix: s(v.prefix, "sha256="),
    encoding: s(v.encoding, "hex"),
    timestampHeader: s(v.timestampHeader),
    toleranceSeconds: s(v.toleranceSeconds, "300"),
    maxBodyKb: c.maxBodyBytes ? String(Number(c.maxBodyBytes) / 1024) : "1024",
    idempotency: s(c.idempotency, "delivery_id"),
    idHeader: s(c.idHeader, "Idempotency-Key"),
    perMinute: s(rl.perMinute, "120"),
    burst: s(rl.burst, "30"),
    mode: s(c.mode, "async"),
    syncTimeoutSeconds: s(c.syncTimeoutSeconds, "10"),
    cron: s(c.cron, kind === "schedule" ? "0 9 * * 1-5" : ""),
    timezone: s(
      c.timezone,
      kind === "schedule" ? Intl.DateTimeFormat().resolvedOptions().timeZone || "UTC" : "UTC",
    ),
    misfire: s(c.misfire, "skip"),
    catchUpWindowMinutes: s(c.catchUpWindowMinutes, "60"),
    overlap: s(c.overlap, "skip"),
    event: s(c.event),
    filter: prettyJson(c.filter),
    input: prettyJson(c.input),
  };
}
type FormState = ReturnType<typeof initialState>;

const num = (s: string) => (s.trim() === "" ? undefined : Number(s));

/** Builds the kind's config from the form; JSON text errors are returned per field. */
function buildConfig(
  kind: TriggerKind,
  f: FormState,
  rows: MappingRow[],
): { config: Record<string, unknown>; errors: Record<string, string> } {
  const errors: Record<string, string> = {};
  const input = parseJsonObject(f.input);
  if (!input.ok) errors.input = input.error;
  const staticInput = input.ok ? (input.value ?? {}) : {};
  const mapping = rowsToMapping(rows);
  for (const r of rows)
    if (r.source.trim() && !r.name.trim())
      errors.mapping = "Every mapped source needs an input name";
  switch (kind) {
    case "webhook": {
      const kb = num(f.maxBodyKb);
      return {
        errors,
        config: {
          method: f.method,
          verification: {
            preset: f.preset,
            header: f.header.trim(),
            prefix: f.prefix,
            encoding: f.encoding,
            ...(f.timestampHeader.trim() ? { timestampHeader: f.timestampHeader.trim() } : {}),
            toleranceSeconds: num(f.toleranceSeconds),
          },
          maxBodyBytes: kb === undefined ? undefined : Math.round(kb * 1024),
          mapping,
          input: staticInput,
          idempotency: f.idempotency,
          idHeader: f.idHeader.trim(),
          rateLimit: { perMinute: num(f.perMinute), burst: num(f.burst) },
          mode: f.mode,
          syncTimeoutSeconds: num(f.syncTimeoutSeconds),
        },
      };
    }
    case "schedule":
      return {
        errors,
        config: {
          cron: f.cron,
          timezone: f.timezone.trim() || "UTC",
          misfire: f.misfire,
          catchUpWindowMinutes: num(f.catchUpWindowMinutes),
          overlap: f.overlap,
          input: staticInput,
        },
      };
    case "event": {
      const filter = parseJsonObject(f.filter);
      if (!filter.ok) errors.filter = filter.error;
      return {
        errors,
        config: {
          event: f.event.trim(),
          ...(filter.ok && filter.value ? { filter: filter.value } : {}),
          mapping,
          input: staticInput,
        },
      };
    }
  }
}

function Select({
  label,
  value,
  onChange,
  options,
  error,
  hint,
}: {
  label: string;
  value: string;
  onChange: (v: string) => void;
  options: readonly (readonly [string, string])[];
  error?: string;
  hint?: ReactNode;
}) {
  return (
    <Field
      label={label}
      error={error}
      hint={hint}
      render={(p) => (
        <select {...p} value={value} onChange={(e) => onChange(e.target.value)}>
          {options.map(([v, l]) => (
            <option key={v} value={v}>
              {l}
            </option>
          ))}
        </select>
      )}
    />
  );
}

function JsonArea({
  label,
  value,
  onChange,
  error,
  hint,
  placeholder,
}: {
  label: string;
  value: string;
  onChange: (v: string) => void;
  error?: string;
  hint?: ReactNode;
  placeholder?: string;
}) {
  return (
    <Field
      label={label}
      error={error}
      hint={hint}
      render={(p) => (
        <textarea
          {...p}
          value={value}
          spellCheck={false}
          placeholder={placeholder}
          onChange={(e) => onChange(e.target.value)}
        />
      )}
    />
  );
}

function MappingEditor({
  rows,
  setRows,
  error,
  sourceHint,
}: {
  rows: MappingRow[];
  setRows: (r: MappingRow[]) => void;
  error?: string;
  sourceHint: string;
}) {
  return (
    <fieldset className="plain stack" style={{ gap: 6 }}>
      <legend>Input mapping</legend>
      <p className="section-note">{sourceHint}</p>
      {rows.map((r, i) => (
        <div className="row" key={i} style={{ alignItems: "flex-end" }}>
          <div className="grow">
            <Field
              label={`Input name ${i + 1}`}
              value={r.name}
              onChange={(e) =>
                setRows(rows.map((x, j) => (j === i ? { ...x, name: e.target.value } : x)))
              }
              placeholder="orderId"
            />
          </div>
          <div className="grow">
            <Field
              label={`Source ${i + 1}`}
              value={r.source}
              onChange={(e) =>
                setRows(rows.map((x, j) => (j === i ? { ...x, source: e.target.value } : x)))
              }
              placeholder="$.order.id"
            />
          </div>
          <button
            type="button"
            className="btn btn-sm"
            aria-label={`Remove mapping ${i + 1}`}
            onClick={() => setRows(rows.filter((_, j) => j !== i))}
          >
            Remove
          </button>
        </div>
      ))}
      <div>
        <button
          type="button"
          className="btn btn-sm"
          onClick={() => setRows([...rows, { name: "", source: "" }])}
        >
          Add mapping
        </button>
      </div>
      {error ? (
        <div className="form-error" role="alert">
          {error}
        </div>
      ) : null}
    </fieldset>
  );
}

/** Create or edit a trigger of one kind, in a dialog; field errors from zod and the server. */
export function TriggerFormDialog({
  mode,
  onClose,
  onSaved,
}: {
  mode: Mode;
  onClose: () => void;
  onSaved: (res: SavedTrigger) => void;
}) {
  const trpc = useTRPC();
  const kind = (mode.type === "create" ? mode.kind : mode.trigger.kind) as TriggerKind;
  const [f, setF] = useState<FormState>(() =>
    mode.type === "create"
      ? initialState(kind, "", {})
      : initialState(kind, mode.trigger.name, mode.trigger.config),
  );
  const [rows, setRows] = useState<MappingRow[]>(() =>
    mode.type === "edit"
      ? mappingToRows((mode.trigger.config as { mapping?: unknown })?.mapping)
      : [],
  );
  const [errors, setErrors] = useState<Record<string, string>>({});
  const set =
    <K extends keyof FormState>(k: K) =>
    (v: FormState[K]) =>
      setF((s) => ({ ...s, [k]: v }));
  const create = useMutation(trpc.trigger.create.mutationOptions());
  const update = useMutation(trpc.trigger.update.mutationOptions());
  const pending = create.isPending || update.isPending;
  const preview = useSchedulePreview(kind === "schedule" ? f.cron : "", f.timezone);
  const err = (k: string) =>
    errors[k] ?? (kind === "schedule" && k in preview.errors ? preview.errors[k] : undefined);
  const serverError = create.error ?? update.error;

  function submit() {
    const built = buildConfig(kind, f, rows);
    const clientErrors: Record<string, string> = { ...built.errors };
    const configCheck = configSchemaFor(kind).safeParse(built.config);
    if (!configCheck.success)
      Object.assign(clientErrors, { ...issuesByField(configCheck.error.issues), ...clientErrors });
    if (!f.name.trim()) clientErrors.name = "Give the trigger a name";
    if (mode.type === "create") {
      const input = {
        kind,
        workflowId: mode.workflowId,
        name: f.name,
        ...(kind === "webhook" && f.path.trim() ? { path: f.path.trim() } : {}),
        config: built.config,
      };
      const parsed = CreateTriggerInput.safeParse(input);
      if (!parsed.success)
        Object.assign(clientErrors, { ...issuesByField(parsed.error.issues), ...clientErrors });
      setErrors(clientErrors);
      if (Object.keys(clientErrors).length || !parsed.success) return;
      create.mutate(parsed.data, {
        onSuccess: (res) => onSaved(res),
        onError: (e) => setErrors(issuesByField(issuesOf(e))),
      });
    } else {
      setErrors(clientErrors);
      if (Object.keys(clientErrors).length) return;
      update.mutate(
        { triggerId: mode.trigger.id, name: f.name, config: built.config },
        {
          onSuccess: (t) => onSaved({ trigger: t as SavedTrigger["trigger"], secret: null }),
          onError: (e) => setErrors(issuesByField(issuesOf(e))),
        },
      );
    }
  }

  const title =
    mode.type === "create"
      ? `New ${KIND_LABELS[kind].toLowerCase()} trigger`
      : `Edit “${mode.trigger.name}”`;
  const formId = `trigger-form-${kind}`;
  const unplaced = Object.entries(errors).filter(([k]) => !PLACED.has(k));

  return (
    <Dialog
      open
      onClose={onClose}
      title={title}
      footer={
        <>
          <button type="button" className="btn" onClick={onClose} disabled={pending}>
            Cancel
          </button>
          <button type="submit" form={formId} className="btn btn-primary" disabled={pending}>
            {pending ? <span className="spinner" aria-hidden /> : null}
            {mode.type === "create" ? "Create trigger" : "Save changes"}
          </button>
        </>
      }
    >
      <form
        id={formId}
        className="form trigger-form"
        noValidate
        onSubmit={(e) => {
          e.preventDefault();
          submit();
        }}
      >
        <Field
          label="Name"
          value={f.name}
          onChange={(e) => set("name")(e.target.value)}
          error={err("name")}
          placeholder={
            kind === "webhook"
              ? "Shop orders"
              : kind === "schedule"
                ? "Weekday report"
                : "On payment"
          }
          autoFocus
        />

        {kind === "webhook" ? (
          <>
            {mode.type === "create" ? (
              <Field
                label="Custom path (optional)"
                value={f.path}
                onChange={(e) => set("path")(e.target.value)}
                error={err("path")}
                hint="The URL becomes /api/hooks/<path>; random when empty."
                placeholder="shop-orders"
              />
            ) : null}
            <div className="form-row">
              <Select
                label="Method"
                value={f.method}
                onChange={set("method")}
                options={WEBHOOK_METHODS.map((m) => [m, m] as const)}
                error={err("method")}
              />
              <Select
                label="Signature verification"
                value={f.preset}
                onChange={set("preset")}
                options={SIGNATURE_PRESETS.map((p) => [p, PRESET_LABELS[p]] as const)}
                error={err("verification.preset")}
              />
            </div>
            {f.preset === "hmac" ? (
              <div className="form-row">
                <Field
                  label="Signature header"
                  value={f.header}
                  onChange={(e) => set("header")(e.target.value)}
                  error={err("verification.header")}
                />
                <Field
                  label="Signature prefix"
                  value={f.prefix}
                  onChange={(e) => set("prefix")(e.target.value)}
                  error={err("verification.prefix")}
                />
                <Select
                  label="Encoding"
                  value={f.encoding}
                  onChange={set("encoding")}
                  options={[
                    ["hex", "hex"],
                    ["base64", "base64"],
                  ]}
                  error={err("verification.encoding")}
                />
                <Field
                  label="Timestamp header (optional)"
                  value={f.timestampHeader}
                  onChange={(e) => set("timestampHeader")(e.target.value)}
                  error={err("verification.timestampHeader")}
                  hint="When set, the signed string is <timestamp>.<body>."
                />
              </div>
            ) : null}
            {f.preset !== "none" && f.preset !== "github" ? (
              <Field
                label="Timestamp tolerance (seconds)"
                type="number"
                value={f.toleranceSeconds}
                onChange={(e) => set("toleranceSeconds")(e.target.value)}
                error={err("verification.toleranceSeconds")}
              />
            ) : null}
            <div className="form-row">
              <Field
                label="Body limit (KiB)"
                type="number"
                value={f.maxBodyKb}
                onChange={(e) => set("maxBodyKb")(e.target.value)}
                error={err("maxBodyBytes")}
                hint="Larger bodies are answered 413."
              />
              <Select
                label="Idempotency"
                value={f.idempotency}
                onChange={set("idempotency")}
                options={[
                  ["delivery_id", "Delivery id header"],
                  ["body_hash", "Body hash"],
                  ["none", "None"],
                ]}
                error={err("idempotency")}
              />
              {f.idempotency === "delivery_id" && f.preset === "hmac" ? (
                <Field
                  label="Delivery id header"
                  value={f.idHeader}
                  onChange={(e) => set("idHeader")(e.target.value)}
                  error={err("idHeader")}
                />
              ) : null}
            </div>
            <div className="form-row">
              <Field
                label="Rate limit (per minute)"
                type="number"
                value={f.perMinute}
                onChange={(e) => set("perMinute")(e.target.value)}
                error={err("rateLimit.perMinute")}
              />
              <Field
                label="Burst"
                type="number"
                value={f.burst}
                onChange={(e) => set("burst")(e.target.value)}
                error={err("rateLimit.burst")}
              />
              <Select
                label="Response mode"
                value={f.mode}
                onChange={set("mode")}
                options={[
                  ["async", "Async: answer 202 {runId}"],
                  ["sync", "Sync: wait for the run's output"],
                ]}
                error={err("mode")}
              />
              {f.mode === "sync" ? (
                <Field
                  label="Sync timeout (seconds)"
                  type="number"
                  value={f.syncTimeoutSeconds}
                  onChange={(e) => set("syncTimeoutSeconds")(e.target.value)}
                  error={err("syncTimeoutSeconds")}
                />
              ) : null}
            </div>
            <MappingEditor
              rows={rows}
              setRows={setRows}
              error={err("mapping")}
              sourceHint="Map request values into run inputs: $.order.id (JSON body), query.name, header.x-request-id."
            />
          </>
        ) : null}

        {kind === "schedule" ? (
          <>
            <div className="form-row">
              <Field
                label="Cron expression"
                value={f.cron}
                onChange={(e) => set("cron")(e.target.value)}
                error={err("cron")}
                hint="Five fields: minute hour day-of-month month day-of-week."
                className="mono"
                spellCheck={false}
              />
              <Field
                label="Time zone"
                value={f.timezone}
                onChange={(e) => set("timezone")(e.target.value)}
                error={err("timezone")}
                hint="IANA name, e.g. Europe/Berlin."
                spellCheck={false}
              />
            </div>
            <SchedulePreview preview={preview} />
            <div className="form-row">
              <Select
                label="Misfire policy"
                value={f.misfire}
                onChange={set("misfire")}
                options={[
                  ["skip", "Skip missed times"],
                  ["latest", "Run the latest missed time once"],
                ]}
                error={err("misfire")}
              />
              <Field
                label="Catch-up window (minutes)"
                type="number"
                value={f.catchUpWindowMinutes}
                onChange={(e) => set("catchUpWindowMinutes")(e.target.value)}
                error={err("catchUpWindowMinutes")}
              />
              <Select
                label="Overlap policy"
                value={f.overlap}
                onChange={set("overlap")}
                options={[
                  ["skip", "Skip while a run is active"],
                  ["queue", "Queue after the active run"],
                  ["allow", "Allow concurrent runs"],
                ]}
                error={err("overlap")}
              />
            </div>
          </>
        ) : null}

        {kind === "event" ? (
          <>
            <Field
              label="Event pattern"
              value={f.event}
              onChange={(e) => set("event")(e.target.value)}
              error={err("event")}
              hint="An event name such as order.paid, or a prefix pattern like order.*"
              spellCheck={false}
            />
            <JsonArea
              label="Filter (optional JSON condition)"
              value={f.filter}
              onChange={set("filter")}
              error={err("filter")}
              placeholder={'{ "ref": "trigger.data.amount", "gt": 100 }'}
              hint="Conditions over trigger.name, trigger.data.… and trigger.source.…"
            />
            <MappingEditor
              rows={rows}
              setRows={setRows}
              error={err("mapping")}
              sourceHint="Map event data into run inputs with $.… paths over the event data."
            />
            {mode.type === "edit" ? <TestEventPanel pattern={f.event} compact /> : null}
          </>
        ) : null}

        <JsonArea
          label="Static input (JSON object)"
          value={f.input}
          onChange={set("input")}
          error={err("input")}
          placeholder={'{ "channel": "#ops" }'}
          hint="Passed to every run; mapped values win."
        />
        {unplaced.length || (serverError && !Object.keys(errors).length) ? (
          <div className="form-error" role="alert">
            {unplaced.length
              ? unplaced.map(([k, m]) => (
                  <div key={k}>
                    {k === "_form" ? "" : `${k}: `}
                    {m}
                  </div>
                ))
              : serverError?.message}
          </div>
        ) : null}
      </form>
    </Dialog>
  );
}

/** Error keys shown next to a field; anything else goes into the summary at the bottom. */
const PLACED = new Set([
  "name",
  "path",
  "method",
  "verification.preset",
  "verification.header",
  "verification.prefix",
  "verification.encoding",
  "verification.timestampHeader",
  "verification.toleranceSeconds",
  "maxBodyBytes",
  "idempotency",
  "idHeader",
  "rateLimit.perMinute",
  "rateLimit.burst",
  "mode",
  "syncTimeoutSeconds",
  "mapping",
  "input",
  "cron",
  "timezone",
  "misfire",
  "catchUpWindowMinutes",
  "overlap",
  "event",
  "filter",
]);
