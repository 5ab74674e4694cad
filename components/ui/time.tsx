"use client";
import { useEffect, useState } from "react";

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

/** "3 minutes ago", with the exact timestamp on hover; re-renders every 30 s. */
export function RelativeTime({ date }: { date: Date | string | null | undefined }) {
  const [, tick] = useState(0);
  useEffect(() => {
    const t = setInterval(() => tick((x) => x + 1), 30_000);
    return () => clearInterval(t);
  }, []);
  if (!date) return <span className="faint">—</span>;
  const d = typeof date === "string" ? new Date(date) : date;
  return (
    <time dateTime={d.toISOString()} title={d.toLocaleString()} suppressHydrationWarning>
      {relative(d)}
    </time>
  );
}
