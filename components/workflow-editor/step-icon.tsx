import {
  Bell,
  Bot,
  ClipboardCheck,
  Circle,
  Clock,
  Code,
  CornerDownLeft,
  GitBranch,
  GitPullRequest,
  Globe,
  NotebookPen,
  Radio,
  Repeat,
  Send,
  Shuffle,
  Sparkles,
  Terminal,
  UserCheck,
  Workflow,
  Wrench,
  type LucideIcon,
} from "lucide-react";
import styles from "./step-icon.module.css";

/**
 * The catalog's icon names (lucide's own names) mapped to lucide-react components, imported one by
 * one so the bundle carries only these. Text glyphs were used once, and the fonts on many machines
 * have no "⑂" or "⧉": Condition and Sub-workflow showed empty boxes. Unknown names get a dot.
 */
export const STEP_ICONS: Readonly<Record<string, LucideIcon>> = {
  shuffle: Shuffle,
  "git-branch": GitBranch,
  globe: Globe,
  terminal: Terminal,
  code: Code,
  sparkles: Sparkles,
  bot: Bot,
  "user-check": UserCheck,
  clock: Clock,
  radio: Radio,
  send: Send,
  repeat: Repeat,
  workflow: Workflow,
  bell: Bell,
  "git-pull-request": GitPullRequest,
  "corner-down-left": CornerDownLeft,
  wrench: Wrench,
  note: NotebookPen,
  "clipboard-check": ClipboardCheck,
};

export function StepIcon({ icon, className }: { icon: string; className?: string }) {
  const Icon = STEP_ICONS[icon] ?? Circle;
  return (
    <Icon
      className={className ? `${styles.icon} ${className}` : styles.icon}
      aria-hidden
      focusable="false"
      data-icon={icon || "unknown"}
    />
  );
}
