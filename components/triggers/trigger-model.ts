import type { TriggerKind } from "@/lib/schemas/triggers";
import {
  describeScheduleZone,
  scheduleZone,
  type ScheduleZone,
} from "@/lib/triggers/schedule-zone";

/**
 * Pure helpers for the triggers UI: labels, summaries, badge tones, form rows ⇄ config records,
 * JSON-object parsing. No React, so they are unit-tested. (Issues → fields: components/forms.)
 */

export const KIND_LABELS: Record<TriggerKind, string> = {
  webhook: "Webhook",
  schedule: "Schedule",
  event: "Event",
};

export type Tone = "ok" | "danger" | "warn" | "info" | "accent" | "";

/** Badge tone of a delivery status (webhook/event) or a schedule tick status. */
export function deliveryTone(status: string): Tone {
  switch (status) {
    case "accepted":
    case "fired":
      return "ok";
    case "duplicate":
    case "skipped":
      return "info";
    case "rate_limited":
    case "too_large":
    case "missed":
      return "warn";
    case "rejected":
    case "failed":
      return "danger";
    default:
      return "";
  }
}

export function runTone(status: string | null | undefined): Tone {
  switch (status) {
    case "completed":
      return "ok";
    case "failed":
    case "timed_out":
      return "danger";
    case "cancelled":
    case "cancel_requested":
      return "warn";
    case "running":
    case "waiting":
    case "queued":
      return "info";
    default:
      return "";
  }
}

export const statusLabel = (s: string) => s.replace(/_/g, " ");

/**
 * One line describing a trigger: the URL of a webhook, cron + zone of a schedule (with where the
 * zone comes from: "(Europe/Berlin (overrides the workflow's UTC))"), an event pattern.
 */
export function triggerSummary(t: {
  kind: string;
  url?: string | null;
  config: unknown;
  schedule?: ScheduleZone | null;
}): string {
  const c = (t.config ?? {}) as Record<string, unknown>;
  switch (t.kind) {
    case "webhook":
      return `${typeof c.method === "string" ? c.method : "POST"} ${t.url ?? ""}`.trim();
    case "schedule":
      return `${String(c.cron ?? "")} · ${describeScheduleZone(
        t.schedule ?? scheduleZone(typeof c.timezone === "string" ? c.timezone : null, null),
      )}`;
    case "event":
      return String(c.event ?? "");
    default:
      return "";
  }
}

/**
 * Who a trigger's webhook, schedule and event runs count against ("Ada (ada@x.dev)"), or why
 * nobody does (the owner left the workspace or was deleted: such triggers start no runs).
 */
export function ownerLabel(o: {
  name: string | null;
  email: string | null;
  status: "member" | "removed" | "deleted";
}): string {
  const who = o.name ? (o.email ? `${o.name} (${o.email})` : o.name) : (o.email ?? "");
  if (o.status === "deleted") return "deleted account — runs are refused until someone takes over";
  if (o.status === "removed")
    return `${who || "a former member"}, no longer a member — runs are refused until someone takes over`;
  return `${who} — runs count against their limits`;
}

/**
 * A trigger's config as the detail page shows it: without the settings its signature preset
 * ignores (the generic HMAC header, prefix, encoding and delivery id header, which the schema
 * still fills with defaults), so a GitHub webhook does not appear to check "X-Signature".
 */
export function shownConfig(kind: string, config: unknown): unknown {
  if (kind !== "webhook" || !config || typeof config !== "object") return config;
  const c = config as Record<string, unknown>;
  const v = (c.verification ?? {}) as Record<string, unknown>;
  if (v.preset === "hmac" || v.preset === undefined) return config;
  const { idHeader: _idHeader, ...rest } = c;
  const { preset, toleranceSeconds } = v;
  return {
    ...rest,
    verification:
      preset === "none" || preset === "github" ? { preset } : { preset, toleranceSeconds },
  };
}

export interface MappingRow {
  name: string;
  source: string;
}

/** Rows as edited in the form → the config record; blank rows are dropped. */
export function rowsToMapping(rows: MappingRow[]): Record<string, string> {
  const out: Record<string, string> = {};
  for (const r of rows) {
    const name = r.name.trim();
    const source = r.source.trim();
    if (!name && !source) continue;
    out[name] = source;
  }
  return out;
}

export function mappingToRows(mapping: unknown): MappingRow[] {
  if (!mapping || typeof mapping !== "object") return [];
  return Object.entries(mapping as Record<string, unknown>).map(([name, source]) => ({
    name,
    source: String(source),
  }));
}

export type JsonObjectResult =
  { ok: true; value: Record<string, unknown> | undefined } | { ok: false; error: string };

/** A textarea holding a JSON object; blank = undefined (use the default). */
export function parseJsonObject(text: string): JsonObjectResult {
  if (!text.trim()) return { ok: true, value: undefined };
  let v: unknown;
  try {
    v = JSON.parse(text);
  } catch (e) {
    return { ok: false, error: `Not valid JSON: ${(e as Error).message}` };
  }
  if (!v || typeof v !== "object" || Array.isArray(v))
    return { ok: false, error: 'Must be a JSON object, e.g. {"key": "value"}' };
  return { ok: true, value: v as Record<string, unknown> };
}

export const prettyJson = (v: unknown) =>
  v === undefined || v === null || (typeof v === "object" && Object.keys(v).length === 0)
    ? ""
    : JSON.stringify(v, null, 2);

/** Human description of a fire time's DST situation, or null when none. */
export function dstNote(t: {
  dstGap?: { wallTimes: string[]; handling: "shifted" | "skipped" };
  dstRepeat?: { occurrence: "first" | "second"; firesTwice: boolean };
}): { kind: "gap" | "repeat"; text: string } | null {
  if (t.dstGap) {
    const wall = t.dstGap.wallTimes.join(", ");
    return {
      kind: "gap",
      text:
        t.dstGap.handling === "shifted"
          ? `DST gap: ${wall} does not exist; fires at the jump instead`
          : `DST gap: ${wall} does not exist and is skipped`,
    };
  }
  if (t.dstRepeat) {
    return {
      kind: "repeat",
      text: t.dstRepeat.firesTwice
        ? `DST repeat (${t.dstRepeat.occurrence} occurrence): this wall time happens twice and fires both times`
        : `DST repeat (${t.dstRepeat.occurrence} occurrence): this wall time happens twice, fires once`,
    };
  }
  return null;
}

export function formatOffset(minutes: number): string {
  const sign = minutes < 0 ? "-" : "+";
  const m = Math.abs(minutes);
  return `UTC${sign}${String(Math.floor(m / 60)).padStart(2, "0")}:${String(m % 60).padStart(2, "0")}`;
}

export const GRACE_OPTIONS = [
  { minutes: 0, label: "Revoke the old secret now" },
  { minutes: 15, label: "15 minutes" },
  { minutes: 60, label: "1 hour" },
  { minutes: 24 * 60, label: "24 hours" },
  { minutes: 7 * 24 * 60, label: "7 days" },
] as const;
