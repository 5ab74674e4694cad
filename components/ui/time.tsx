"use client";
import { useSyncExternalStore } from "react";

const UNITS: [Intl.RelativeTimeFormatUnit, number][] = [
  ["year", 365 * 86400],
  ["month", 30 * 86400],
  ["week", 7 * 86400],
  ["day", 86400],
  ["hour", 3600],
  ["minute", 60],
  ["second", 1],
];

const fmt = new Intl.RelativeTimeFormat("en", { numeric: "auto" });

export function relative(date: Date, now = Date.now()): string {
  const diff = (date.getTime() - now) / 1000;
  for (const [unit, secs] of UNITS) {
    if (Math.abs(diff) >= secs || unit === "second")
      return fmt.format(Math.round(diff / secs), unit);
  }
  return "";
}

/**
 * The same text on the server and in the browser, whatever their time zones and locales:
 * "2026-11-24 05:30 UTC". Shown until hydration has finished, then replaced by local text.
 */
export function utcLabel(date: Date): string {
  return `${date.toISOString().slice(0, 16).replace("T", " ")} UTC`;
}

/** How often "now" moves by default: relative times of older things and idle durations. */
export const NOW_TICK_MS = 30_000;
/** For anything that changes by the second: "12 seconds ago", an active run's duration. */
export const LIVE_TICK_MS = 1_000;

interface Clock {
  subscribe(listener: () => void): () => void;
  now(): number;
}

/**
 * One shared clock per interval for every time on the page: a single interval while anything
 * listens, none otherwise (cleared with the last listener), so a page of 100 relative times
 * runs one timer, and a per-second clock does not wake listeners that only need half-minutes.
 */
const clocks = new Map<number, Clock>();
function clockFor(intervalMs: number): Clock {
  let clock = clocks.get(intervalMs);
  if (clock) return clock;
  const listeners = new Set<() => void>();
  let now = Date.now();
  let timer: ReturnType<typeof setInterval> | null = null;
  const tick = () => {
    now = Date.now();
    for (const l of listeners) l();
  };
  clock = {
    subscribe(listener) {
      // A newly shown time must not read a stale clock ("in 20 seconds" for something just
      // created): catch up, at most once per interval. React re-reads the snapshot after this.
      if (Date.now() - now > Math.min(intervalMs, 1000)) tick();
      if (timer === null) timer = setInterval(tick, intervalMs);
      listeners.add(listener);
      return () => {
        listeners.delete(listener);
        if (listeners.size === 0 && timer !== null) {
          clearInterval(timer);
          timer = null;
        }
      };
    },
    now: () => now,
  };
  clocks.set(intervalMs, clock);
  return clock;
}

/**
 * A value derived from the current time, recomputed every `intervalMs` — re-rendering only when
 * the value changes (e.g. the text "3 minutes ago" ticks once a minute on a per-second clock).
 * `serverValue` while server-rendering and hydrating, so server HTML and the first client render
 * agree. `select` must return a primitive (compared with Object.is).
 */
export function useClock<T extends string | number | boolean | null>(
  intervalMs: number,
  select: (now: number) => T,
  serverValue: T,
): T {
  const clock = clockFor(intervalMs);
  return useSyncExternalStore(
    clock.subscribe,
    () => select(clock.now()),
    () => serverValue,
  );
}

/**
 * The current time in ms, ticking every `intervalMs` (30 s by default) — or `null` while
 * server-rendering and hydrating. Anything derived from "now" (relative times, durations of
 * active runs) must render a time-independent fallback when this is `null`, or React reports a
 * hydration mismatch.
 */
export function useNow(intervalMs = NOW_TICK_MS): number | null {
  return useClock<number | null>(intervalMs, (now) => now, null);
}

const subscribeNever = () => () => {};

/**
 * False on the server and while hydrating, true afterwards (and on client-side navigations):
 * for anything the server cannot render like the browser (local time zone, data that may
 * arrive between the server render and hydration).
 */
export function useHydrated(): boolean {
  return useSyncExternalStore(
    subscribeNever,
    () => true,
    () => false,
  );
}

function toDate(date: Date | string | number): Date {
  return date instanceof Date ? date : new Date(date);
}

/**
 * "3 minutes ago", with the exact local timestamp on hover. The text ticks with the time: a
 * per-second clock, re-rendering only when the words change ("12 seconds ago" → "13 seconds
 * ago", "3 minutes ago" once a minute).
 * The relative text and the local title differ between server and browser (clock, time zone,
 * locale): they are rendered after hydration only, the server renders a UTC label instead of
 * relying on suppressHydrationWarning (which hid the text but left the server's wrong title).
 */
export function RelativeTime({ date }: { date: Date | string | null | undefined }) {
  const d = date ? toDate(date) : null;
  const ms = d ? d.getTime() : NaN;
  const text = useClock(
    LIVE_TICK_MS,
    (now) => (Number.isNaN(ms) ? null : relative(new Date(ms), now)),
    null,
  );
  if (!d || Number.isNaN(ms)) return <span className="faint">—</span>;
  const iso = d.toISOString();
  if (text === null)
    return (
      <time dateTime={iso} title={utcLabel(d)}>
        {utcLabel(d)}
      </time>
    );
  return (
    <time dateTime={iso} title={d.toLocaleString()}>
      {text}
    </time>
  );
}

/** An absolute time in the reader's locale and time zone (a UTC label until hydrated). */
export function LocalTime({ date }: { date: Date | string | number }) {
  const hydrated = useHydrated();
  const d = toDate(date);
  if (Number.isNaN(d.getTime())) return <span className="faint">—</span>;
  return <time dateTime={d.toISOString()}>{hydrated ? d.toLocaleString() : utcLabel(d)}</time>;
}
