import styles from "./step-icon.module.css";

/**
 * Icons for the catalog's icon names, drawn as inline SVG after the lucide icons of the same
 * name (ISC licence; no icon package is installed). Text glyphs were used before, and the fonts
 * on many machines have no "⑂" or "⧉": Condition and Sub-workflow showed empty boxes. Every
 * shape is a path so the icon renders the same everywhere. Unknown names get a neutral dot.
 */
const circle = (cx: number, cy: number, r: number) =>
  `M${cx - r} ${cy}a${r} ${r} 0 1 0 ${2 * r} 0a${r} ${r} 0 1 0 ${-2 * r} 0`;
const rect = (x: number, y: number, w: number, h: number, r: number) =>
  `M${x + r} ${y}h${w - 2 * r}a${r} ${r} 0 0 1 ${r} ${r}v${h - 2 * r}a${r} ${r} 0 0 1 ${-r} ${r}h${-(w - 2 * r)}a${r} ${r} 0 0 1 ${-r} ${-r}v${-(h - 2 * r)}a${r} ${r} 0 0 1 ${r} ${-r}z`;

export const ICON_PATHS: Readonly<Record<string, readonly string[]>> = {
  shuffle: [
    "M2 18h1.4c1.3 0 2.5-.6 3.3-1.7l6.1-8.6c.7-1.1 2-1.7 3.3-1.7H22",
    "m18 2 4 4-4 4",
    "M2 6h1.9c1.5 0 2.9.9 3.6 2.2",
    "M22 18h-5.9c-1.3 0-2.6-.7-3.3-1.8l-.5-.8",
    "m18 14 4 4-4 4",
  ],
  "git-branch": ["M6 3v12", circle(18, 6, 3), circle(6, 18, 3), "M18 9a9 9 0 0 1-9 9"],
  globe: [circle(12, 12, 10), "M12 2a14.5 14.5 0 0 0 0 20 14.5 14.5 0 0 0 0-20", "M2 12h20"],
  terminal: ["m4 17 6-6-6-6", "M12 19h8"],
  code: ["m16 18 6-6-6-6", "m8 6-6 6 6 6"],
  sparkles: [
    "M12 3l1.9 5.1L19 10l-5.1 1.9L12 17l-1.9-5.1L5 10l5.1-1.9z",
    "M5 3v4",
    "M3 5h4",
    "M19 17v4",
    "M17 19h4",
  ],
  bot: ["M12 8V4H8", rect(4, 8, 16, 12, 2), "M2 14h2", "M20 14h2", "M15 13v2", "M9 13v2"],
  "user-check": ["M16 21v-2a4 4 0 0 0-4-4H6a4 4 0 0 0-4 4v2", circle(9, 7, 4), "m16 11 2 2 4-4"],
  clock: [circle(12, 12, 10), "M12 6v6l4 2"],
  radio: [
    circle(12, 12, 2),
    "M16.24 7.76a6 6 0 0 1 0 8.49",
    "M7.76 16.24a6 6 0 0 1 0-8.49",
    "M19.07 4.93a10 10 0 0 1 0 14.14",
    "M4.93 19.07a10 10 0 0 1 0-14.14",
  ],
  send: ["m22 2-7 20-4-9-9-4Z", "M22 2 11 13"],
  repeat: [
    "m17 2 4 4-4 4",
    "M3 11v-1a4 4 0 0 1 4-4h14",
    "m7 22-4-4 4-4",
    "M21 13v1a4 4 0 0 1-4 4H3",
  ],
  workflow: [rect(3, 3, 8, 8, 2), "M7 11v4a2 2 0 0 0 2 2h4", rect(13, 13, 8, 8, 2)],
  bell: ["M6 8a6 6 0 0 1 12 0c0 7 3 9 3 9H3s3-2 3-9", "M10.3 21a1.94 1.94 0 0 0 3.4 0"],
  "git-pull-request": [circle(18, 18, 3), circle(6, 6, 3), "M13 6h3a2 2 0 0 1 2 2v7", "M6 9v12"],
  "corner-down-left": ["M20 4v7a4 4 0 0 1-4 4H4", "m9 10-5 5 5 5"],
  wrench: [
    "M14.7 6.3a1 1 0 0 0 0 1.4l1.6 1.6a1 1 0 0 0 1.4 0l3.77-3.77a6 6 0 0 1-7.94 7.94l-6.91 6.91a2.12 2.12 0 0 1-3-3l6.91-6.91a6 6 0 0 1 7.94-7.94l-3.76 3.76z",
  ],
  note: ["M12 20h9", "M16.5 3.5a2.12 2.12 0 0 1 3 3L7 19l-4 1 1-4Z"],
  "clipboard-check": [
    rect(8, 2, 8, 4, 1),
    "M16 4h2a2 2 0 0 1 2 2v14a2 2 0 0 1-2 2H6a2 2 0 0 1-2-2V6a2 2 0 0 1 2-2h2",
    "m9 14 2 2 4-4",
  ],
};
const FALLBACK = [circle(12, 12, 3)];

export function StepIcon({ icon, className }: { icon: string; className?: string }) {
  return (
    <svg
      className={className ? `${styles.icon} ${className}` : styles.icon}
      viewBox="0 0 24 24"
      aria-hidden
      focusable="false"
      data-icon={icon || "unknown"}
    >
      {(ICON_PATHS[icon] ?? FALLBACK).map((d) => (
        <path key={d} d={d} />
      ))}
    </svg>
  );
}
