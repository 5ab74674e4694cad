/** Display helpers of the operations page (pure: unit-tested). */

/** 0.25 → "25%", 1/3 → "33.3%"; no runs → "—". */
export function percent(rate: number, runs: number): string {
  if (!runs) return "—";
  const p = rate * 100;
  return `${Number.isInteger(p) ? p : p.toFixed(1)}%`;
}

/** Milliseconds as a short duration: 850 ms, 3.2 s, 4 min 5 s, 2 h 10 min; null → "—". */
export function duration(ms: number | null): string {
  if (ms === null) return "—";
  if (ms < 1000) return `${Math.round(ms)} ms`;
  const s = ms / 1000;
  if (s < 60) return `${Number.isInteger(s) ? s : s.toFixed(1)} s`;
  const m = Math.floor(s / 60);
  if (m < 60) return `${m} min ${Math.round(s - m * 60)} s`;
  const h = Math.floor(m / 60);
  return `${h} h ${m - h * 60} min`;
}

/** An hour bucket's axis label: "14:00" over 24 hours, "Mar 10" at midnight over 7 days (UTC). */
export function hourLabel(iso: string, range: "24h" | "7d"): string {
  const d = new Date(iso);
  if (range === "24h") return `${iso.slice(11, 16)}`;
  return d.toLocaleDateString("en", { month: "short", day: "numeric", timeZone: "UTC" });
}
