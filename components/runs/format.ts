/** Pure display helpers for runs (no React), unit-tested. */
import { OPERATOR_SYMBOLS } from "@/lib/workflow/conditions";
import { isActive, UNFINISHED_RUN_STATUSES, type StepStatus } from "@/lib/workflow/status";

/** Runs the list shows as in progress (queued included): the unfinished set. */
export const ACTIVE_RUN_STATUSES = UNFINISHED_RUN_STATUSES;

export function isActiveRun(status: string): boolean {
  return (ACTIVE_RUN_STATUSES as readonly string[]).includes(status);
}

export function statusLabel(status: string): string {
  switch (status) {
    case "cancel_requested":
      return "cancelling";
    case "timed_out":
      return "timed out";
    default:
      return status;
  }
}

/** CSS badge class for a run or step status. */
export function statusTone(status: string): string {
  switch (status) {
    case "completed":
      return "badge badge-ok";
    case "failed":
    case "timed_out":
      return "badge badge-danger";
    case "running":
    case "queued":
      return "badge badge-info";
    case "waiting":
    case "cancel_requested":
      return "badge badge-warn";
    case "cancelled":
    case "skipped":
      return "badge";
    default:
      return "badge";
  }
}

/** "850 ms", "12.3 s", "4 min 5 s", "2 h 3 min". */
export function formatDuration(ms: number | null | undefined): string {
  if (ms === null || ms === undefined || !Number.isFinite(ms) || ms < 0) return "—";
  if (ms < 1000) return `${Math.round(ms)} ms`;
  const s = ms / 1000;
  if (s < 60) return `${s < 10 ? s.toFixed(1) : Math.round(s)} s`;
  const m = Math.floor(s / 60);
  if (m < 60) return `${m} min ${Math.floor(s % 60)} s`;
  const h = Math.floor(m / 60);
  if (h < 24) return `${h} h ${m % 60} min`;
  return `${Math.floor(h / 24)} d ${h % 24} h`;
}

function toTime(d: Date | string | null | undefined): number | null {
  if (!d) return null;
  const t = (typeof d === "string" ? new Date(d) : d).getTime();
  return Number.isNaN(t) ? null : t;
}

/** Run duration: start (or creation) to finish, or to now while it is active. */
export function runDuration(
  run: {
    createdAt: Date | string;
    startedAt?: Date | string | null;
    finishedAt?: Date | string | null;
  },
  now = Date.now(),
): number | null {
  const start = toTime(run.startedAt) ?? toTime(run.createdAt);
  if (start === null) return null;
  const end = toTime(run.finishedAt) ?? now;
  return Math.max(0, end - start);
}

/**
 * A step attempt's duration: the recorded one once it ended, start to `now` while it runs or
 * waits (an approval gate's wait grows on screen), else unknown.
 */
export function attemptDuration(
  a: { status: string; durationMs: number | null; startedAt?: Date | string | null },
  now: number | null,
): number | null {
  if (a.durationMs !== null) return a.durationMs;
  if (now === null || !a.startedAt || !isActive(a.status as StepStatus)) return null;
  return runDuration({ createdAt: a.startedAt, startedAt: a.startedAt }, now);
}

/** Pretty JSON, cut to `max` characters; `truncated` tells the UI to offer the full download. */
export function jsonPreview(
  value: unknown,
  max = 4000,
): { text: string; truncated: boolean; size: number } {
  let text: string;
  try {
    text = JSON.stringify(value, null, 2) ?? "null";
  } catch {
    text = String(value);
  }
  if (text.length <= max) return { text, truncated: false, size: text.length };
  return { text: `${text.slice(0, max)}\n…`, truncated: true, size: text.length };
}

/** The error message of a run/step error value ({ message } objects or strings). */
export function errorMessage(error: unknown): string | null {
  if (!error) return null;
  if (typeof error === "string") return error;
  if (typeof error === "object" && "message" in error && typeof error.message === "string")
    return error.message;
  return JSON.stringify(error);
}

export const WAITING_PRESETS: { minutes: number; label: string }[] = [
  { minutes: 5, label: "5 minutes" },
  { minutes: 60, label: "1 hour" },
  { minutes: 24 * 60, label: "1 day" },
  { minutes: 7 * 24 * 60, label: "1 week" },
];

/**
 * The step "Rerun from a step" preselects: the first step in run order whose latest attempt
 * failed (a failure inside a loop body counts for its top-level loop, the unit a rerun starts
 * from). Null when none failed.
 */
export function firstFailedStep(
  stepIds: readonly string[],
  attempts: readonly { path: string; stepId: string; status: string }[],
): string | null {
  // Attempts come in run order; a Map keeps each path's first place and its latest attempt.
  const latest = new Map<string, { stepId: string; status: string }>();
  for (const a of attempts) latest.set(a.path, a);
  for (const [path, a] of latest) {
    if (a.status !== "failed") continue;
    const top = /^[^.[]+/.exec(path)?.[0] ?? a.stepId;
    if (stepIds.includes(top)) return top;
  }
  return null;
}

/** One evaluated comparison as the run page shows it: `input.amount: 250 > 100 → true`. */
export interface ConditionCheckView {
  ref: string;
  op: string;
  actual: string;
  expected?: string;
  result: boolean;
}

/** The comparisons a condition step recorded (`output.meta.checks`), or null for other steps. */
export function conditionChecksOf(output: unknown): ConditionCheckView[] | null {
  const meta = (output as { meta?: { checks?: unknown } } | null | undefined)?.meta;
  if (!Array.isArray(meta?.checks)) return null;
  return meta.checks.filter(
    (c): c is ConditionCheckView =>
      typeof c === "object" &&
      c !== null &&
      typeof (c as ConditionCheckView).ref === "string" &&
      typeof (c as ConditionCheckView).actual === "string" &&
      typeof (c as ConditionCheckView).result === "boolean",
  );
}

export function formatCheck(check: ConditionCheckView): string {
  const symbol = (OPERATOR_SYMBOLS as Record<string, string>)[check.op];
  const middle =
    check.op === "truthy" || symbol === undefined
      ? `${check.actual} is truthy`
      : check.op === "exists"
        ? `${check.actual} exists${check.expected === "false" ? ": false" : ""}`
        : `${check.actual} ${symbol} ${check.expected ?? "null"}`;
  return `${check.ref}: ${middle} → ${check.result}`;
}
