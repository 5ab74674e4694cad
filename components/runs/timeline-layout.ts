/**
 * The waterfall timeline's geometry, pure: one bar per step attempt on a shared time axis.
 *
 * Queue wait is not recorded (an attempt's row is written when it starts), so it is derived:
 * an attempt became ready when the latest of its upstream steps finished before it started
 * (edges of the definition), a retry when its previous attempt finished (the backoff), and a
 * first step when the run started. Ready → started is the wait; started → finished the run time.
 */
import { statusLabel } from "./format";

type When = Date | string | null | undefined;

export interface TimelineAttempt {
  id: string;
  path: string;
  stepId: string;
  stepType: string;
  attempt: number;
  status: string;
  createdAt: When;
  startedAt: When;
  finishedAt: When;
}

export interface TimelineBar {
  id: string;
  path: string;
  attempt: number;
  status: string;
  /** Ready (derived), started and ended (now while unfinished), in ms since the epoch. */
  readyAt: number;
  startedAt: number;
  endAt: number;
  queueMs: number;
  durationMs: number;
  isRunning: boolean;
  /** What the ready time was derived from. */
  readyFrom: "run start" | "upstream" | "previous attempt";
  /** Positions on the axis, in percent of its width. */
  queueLeft: number;
  left: number;
  width: number;
}

export interface TimelineRow {
  path: string;
  stepType: string;
  bars: TimelineBar[];
}

export interface TimelineLayout {
  start: number;
  end: number;
  rows: TimelineRow[];
  /** Axis labels: offsets from the start, positioned in percent. */
  ticks: { at: number; offsetMs: number }[];
}

const time = (d: When): number | null => {
  if (!d) return null;
  const t = (typeof d === "string" ? new Date(d) : d).getTime();
  return Number.isNaN(t) ? null : t;
};

const UNFINISHED = new Set(["running", "waiting", "pending", "queued"]);

export function layoutTimeline(a: {
  attempts: readonly TimelineAttempt[];
  edges?: readonly { from: string; to: string }[];
  runStartedAt: When;
  /** Ends unfinished attempts (live); null before hydration ends them at their start. */
  now: number | null;
  ticks?: number;
}): TimelineLayout {
  const runStart = time(a.runStartedAt);
  const upstream = new Map<string, string[]>();
  for (const e of a.edges ?? []) upstream.set(e.to, [...(upstream.get(e.to) ?? []), e.from]);
  const finishedByStep = new Map<string, number[]>();
  for (const x of a.attempts) {
    const f = time(x.finishedAt);
    if (f !== null) finishedByStep.set(x.stepId, [...(finishedByStep.get(x.stepId) ?? []), f]);
  }
  const previous = new Map<string, number>();
  const raw: (Omit<TimelineBar, "queueLeft" | "left" | "width"> & { stepType: string })[] = [];
  const sorted = [...a.attempts].sort(
    (x, y) =>
      (time(x.startedAt) ?? time(x.createdAt) ?? 0) -
        (time(y.startedAt) ?? time(y.createdAt) ?? 0) || x.attempt - y.attempt,
  );
  for (const x of sorted) {
    const started = time(x.startedAt) ?? time(x.createdAt);
    if (started === null) continue;
    const finished = time(x.finishedAt);
    const isRunning = finished === null && UNFINISHED.has(x.status);
    const end = finished ?? (isRunning && a.now !== null ? Math.max(a.now, started) : started);
    let readyAt: number;
    let readyFrom: TimelineBar["readyFrom"];
    const prev = previous.get(x.path);
    if (x.attempt > 1 && prev !== undefined) {
      readyAt = prev;
      readyFrom = "previous attempt";
    } else {
      const ups = (upstream.get(x.stepId) ?? [])
        .flatMap((id) => finishedByStep.get(id) ?? [])
        .filter((f) => f <= started);
      if (ups.length) {
        readyAt = Math.max(...ups);
        readyFrom = "upstream";
      } else {
        readyAt = runStart ?? started;
        readyFrom = "run start";
      }
    }
    readyAt = Math.min(readyAt, started);
    previous.set(x.path, end);
    raw.push({
      id: x.id,
      path: x.path,
      stepType: x.stepType,
      attempt: x.attempt,
      status: x.status,
      readyAt,
      startedAt: started,
      endAt: end,
      queueMs: started - readyAt,
      durationMs: end - started,
      isRunning,
      readyFrom,
    });
  }
  const start = Math.min(runStart ?? Infinity, ...raw.map((b) => b.readyAt));
  const end = Math.max(
    ...raw.map((b) => b.endAt),
    a.now !== null && raw.some((b) => b.isRunning) ? a.now : -Infinity,
  );
  if (!Number.isFinite(start) || !Number.isFinite(end))
    return { start: 0, end: 0, rows: [], ticks: [] };
  const span = Math.max(end - start, 1);
  const pct = (t: number) => ((t - start) / span) * 100;
  const rows = new Map<string, TimelineRow>();
  for (const { stepType, ...b } of raw) {
    const row = rows.get(b.path) ?? { path: b.path, stepType, bars: [] };
    row.bars.push({
      ...b,
      queueLeft: pct(b.readyAt),
      left: pct(b.startedAt),
      width: pct(b.endAt) - pct(b.startedAt),
    });
    rows.set(b.path, row);
  }
  const n = a.ticks ?? 4;
  return {
    start,
    end,
    rows: [...rows.values()].map((r) => ({
      ...r,
      bars: r.bars.sort((x, y) => x.attempt - y.attempt),
    })),
    ticks: Array.from({ length: n + 1 }, (_, i) => ({
      at: (i / n) * 100,
      offsetMs: Math.round((span * i) / n),
    })),
  };
}

/** The words a bar carries, so status is never told by colour alone. */
export function barLabel(b: TimelineBar): string {
  const status = b.isRunning ? `${statusLabel(b.status)} (so far)` : statusLabel(b.status);
  return `${b.path} attempt ${b.attempt}: ${status}`;
}
