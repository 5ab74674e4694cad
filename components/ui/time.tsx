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

export function relative(date: Date, now = Date.now()): string {
  const diff = (date.getTime() - now) / 1000;
  const fmt = new Intl.RelativeTimeFormat("en", { numeric: "auto" });
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

const NOW_TICK_MS = 30_000;

/**
 * One shared clock for every time on the page: a single interval while anything listens, none
 * otherwise (the interval is cleared with the last listener). `null` on the server and during
 * hydration, so server HTML and the first client render agree.
 */
const clock = (() => {
  const listeners = new Set<() => void>();
  let now = Date.now();
  let timer: ReturnType<typeof setInterval> | null = null;
  const tick = () => {
    now = Date.now();
    for (const l of listeners) l();
  };
  return {
    subscribe(listener: () => void) {
      // A newly shown time must not read a stale clock ("in 20 seconds" for something just
      // created): catch up, at most once a second. React re-reads the snapshot after subscribing.
      if (Date.now() - now > 1000) tick();
      if (timer === null) timer = setInterval(tick, NOW_TICK_MS);
      listeners.add(listener);
      return () => {
        listeners.delete(listener);
        if (listeners.size === 0 && timer !== null) {
          clearInterval(timer);
          timer = null;
        }
      };
    },
    getSnapshot: (): number | null => now,
    getServerSnapshot: (): number | null => null,
  };
})();

/**
 * The current time in ms, ticking every 30 s — or `null` while server-rendering and hydrating.
 * Anything derived from "now" (relative times, durations of active runs) must render a
 * time-independent fallback when this is `null`, or React reports a hydration mismatch.
 */
export function useNow(): number | null {
  return useSyncExternalStore(clock.subscribe, clock.getSnapshot, clock.getServerSnapshot);
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
 * "3 minutes ago", with the exact local timestamp on hover; re-renders every 30 s.
 * The relative text and the local title differ between server and browser (clock, time zone,
 * locale): they are rendered after hydration only, the server renders a UTC label instead of
 * relying on suppressHydrationWarning (which hid the text but left the server's wrong title).
 */
export function RelativeTime({ date }: { date: Date | string | null | undefined }) {
  const now = useNow();
  if (!date) return <span className="faint">—</span>;
  const d = toDate(date);
  if (Number.isNaN(d.getTime())) return <span className="faint">—</span>;
  const iso = d.toISOString();
  if (now === null)
    return (
      <time dateTime={iso} title={utcLabel(d)}>
        {utcLabel(d)}
      </time>
    );
  return (
    <time dateTime={iso} title={d.toLocaleString()}>
      {relative(d, now)}
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
