/**
 * Glyphs for the catalog's icon names (lucide names; no icon package is installed, and a
 * character renders crisply at every zoom of the canvas). Unknown names get a neutral dot.
 */
const GLYPHS: Readonly<Record<string, string>> = {
  shuffle: "⇄",
  "git-branch": "⑂",
  globe: "◍",
  terminal: "›_",
  code: "</>",
  sparkles: "✦",
  bot: "◉",
  "user-check": "✓",
  clock: "◷",
  radio: "((·))",
  send: "➤",
  repeat: "↻",
  workflow: "⧉",
  bell: "♪",
  "git-pull-request": "⇵",
  "corner-down-left": "↵",
  wrench: "⚒",
  note: "✎",
  "clipboard-check": "☑",
};

export function StepIcon({ icon, className }: { icon: string; className?: string }) {
  return (
    <span className={className ?? "ge-icon"} aria-hidden>
      {GLYPHS[icon] ?? "•"}
    </span>
  );
}
