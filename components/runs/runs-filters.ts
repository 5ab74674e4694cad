/** Runs list filters <-> URL search params (so filtered views can be shared and reloaded). */
import {
  INLINE_WORKFLOW_NAME,
  RUN_LIST_STATUSES,
  TRIGGER_TYPES,
  type ListRunsInput,
} from "@/lib/schemas/runs";

export interface RunFilters {
  /** A workflow id, or "inline" for inline runs (no workflow). */
  workflowId?: string;
  status: (typeof RUN_LIST_STATUSES)[number][];
  trigger?: (typeof TRIGGER_TYPES)[number];
  /** yyyy-mm-dd, inclusive, local days */
  from?: string;
  to?: string;
  retrying: boolean;
  waitingMinutes?: number;
  /** Show the editor's test runs too (docs/runs.md "Testing while building"); hidden by default. */
  tests?: boolean;
}

const DAY = /^\d{4}-\d{2}-\d{2}$/;

export function filtersFromParams(p: URLSearchParams): RunFilters {
  const status = (p.get("status") ?? "")
    .split(",")
    .filter((s): s is RunFilters["status"][number] =>
      (RUN_LIST_STATUSES as readonly string[]).includes(s),
    );
  const trigger = p.get("trigger");
  const waiting = Number(p.get("waiting"));
  const from = p.get("from") ?? "";
  const to = p.get("to") ?? "";
  return {
    workflowId: p.get("workflow") || undefined,
    status,
    trigger: (TRIGGER_TYPES as readonly string[]).includes(trigger ?? "")
      ? (trigger as RunFilters["trigger"])
      : undefined,
    from: DAY.test(from) ? from : undefined,
    to: DAY.test(to) ? to : undefined,
    retrying: p.get("retrying") === "1",
    waitingMinutes: Number.isInteger(waiting) && waiting > 0 ? waiting : undefined,
    ...(p.get("tests") === "1" ? { tests: true } : {}),
  };
}

export function filtersToParams(f: RunFilters): URLSearchParams {
  const p = new URLSearchParams();
  if (f.workflowId) p.set("workflow", f.workflowId);
  if (f.status.length) p.set("status", f.status.join(","));
  if (f.trigger) p.set("trigger", f.trigger);
  if (f.from) p.set("from", f.from);
  if (f.to) p.set("to", f.to);
  if (f.retrying) p.set("retrying", "1");
  if (f.waitingMinutes) p.set("waiting", String(f.waitingMinutes));
  if (f.tests) p.set("tests", "1");
  return p;
}

/** A yyyy-mm-dd local day as its first (or with `end`, last) millisecond. */
export function localDay(s: string, end: boolean): Date {
  const [y, m, d] = s.split("-").map(Number);
  return end ? new Date(y!, m! - 1, d!, 23, 59, 59, 999) : new Date(y!, m! - 1, d!);
}

/** The list query for the filters (dates are local days: `to` includes the whole day). */
export function filtersToQuery(f: RunFilters): ListRunsInput {
  const day = localDay;
  return {
    ...(f.workflowId === INLINE_WORKFLOW_NAME
      ? { inline: true }
      : f.workflowId
        ? { workflowId: f.workflowId }
        : {}),
    ...(f.status.length ? { status: f.status } : {}),
    ...(f.trigger ? { trigger: f.trigger } : {}),
    ...(f.from ? { from: day(f.from, false) } : {}),
    ...(f.to ? { to: day(f.to, true) } : {}),
    ...(f.retrying ? { retrying: true } : {}),
    ...(f.waitingMinutes ? { waitingLongerThanMinutes: f.waitingMinutes } : {}),
    ...(f.tests ? { tests: "include" as const } : {}),
    limit: 25,
  };
}

export function hasFilters(f: RunFilters, ignoreWorkflow = false): boolean {
  return Boolean(
    (!ignoreWorkflow && f.workflowId) ||
    f.status.length ||
    f.trigger ||
    f.from ||
    f.to ||
    f.retrying ||
    f.tests ||
    f.waitingMinutes,
  );
}
