/** Quota reset times in words: "in 3 days, on 1 Dec 2026 00:00 UTC". */
import { relative } from "@/components/ui/time";

const MONTHS = ["Jan", "Feb", "Mar", "Apr", "May", "Jun", "Jul", "Aug", "Sep", "Oct", "Nov", "Dec"];

/** "1 Dec 2026 00:00 UTC": the same text on the server and in every browser. */
export function utcDayLabel(at: Date): string {
  const hh = String(at.getUTCHours()).padStart(2, "0");
  const mm = String(at.getUTCMinutes()).padStart(2, "0");
  return `${at.getUTCDate()} ${MONTHS[at.getUTCMonth()]} ${at.getUTCFullYear()} ${hh}:${mm} UTC`;
}

/** "resets in 3 days, on 1 Dec 2026 00:00 UTC"; without `now` (not hydrated) only the date. */
export function resetLabel(at: Date, now: number | null): string {
  const day = utcDayLabel(at);
  return now === null ? `Resets on ${day}` : `Resets ${relative(at, now)}, on ${day}`;
}
