"use client";
import { memo, useId, useMemo, useState, type DragEvent, type KeyboardEvent } from "react";
import {
  STEP_CATALOG,
  STEP_CATEGORIES,
  STEP_TYPES,
  type StepCategory,
  type StepType,
} from "@/lib/workflow/catalog";
import styles from "./palette.module.css";
import { StepIcon } from "./step-icon";

/** The drag payload's MIME type: a step type name. */
export const PALETTE_MIME = "application/x-sluice-step-type";

const CATEGORY_LABELS: Record<StepCategory, string> = {
  logic: "Logic",
  data: "Data",
  integration: "Integrations",
  ai: "AI",
  human: "People",
  timing: "Timing",
  flow: "Flow",
};

/** Catalog entries grouped by category (catalog order inside a group), filtered by a query. */
export function paletteGroups(query: string): { category: StepCategory; types: StepType[] }[] {
  const q = query.trim().toLowerCase();
  const matches = (t: StepType) => {
    const info = STEP_CATALOG[t];
    return (
      !q ||
      t.includes(q) ||
      info.label.toLowerCase().includes(q) ||
      info.description.toLowerCase().includes(q)
    );
  };
  return STEP_CATEGORIES.map((category) => ({
    category,
    types: STEP_TYPES.filter((t) => STEP_CATALOG[t].category === category && matches(t)),
  })).filter((g) => g.types.length > 0);
}

/** First sentence of a catalog description: the palette entry's tooltip. */
function oneLine(description: string): string {
  const end = description.search(/\.(\s|$)/);
  return end === -1 ? description : description.slice(0, end + 1);
}

/**
 * The step palette: drag an entry onto the canvas, or press Enter (or click) to add it after
 * the selected step.
 */
export const Palette = memo(function Palette({
  onAdd,
  disabled,
}: {
  onAdd: (type: StepType) => void;
  disabled: boolean;
}) {
  const [query, setQuery] = useState("");
  const groups = useMemo(() => paletteGroups(query), [query]);
  const searchId = useId();
  // One Tab stop for the whole list (roving tabindex), arrows move inside it: Tab reaches the
  // canvas toolbar past 1 entry instead of 18.
  const [active, setActive] = useState<StepType | null>(null);
  const shown = groups.flatMap((g) => g.types);
  const tabStop = active && shown.includes(active) ? active : shown[0];
  const onListKeyDown = (e: KeyboardEvent<HTMLDivElement>) => {
    const buttons = [...e.currentTarget.querySelectorAll<HTMLButtonElement>("button:enabled")];
    const at = buttons.indexOf(document.activeElement as HTMLButtonElement);
    if (at === -1) return;
    const to =
      e.key === "ArrowDown" || e.key === "ArrowRight"
        ? Math.min(at + 1, buttons.length - 1)
        : e.key === "ArrowUp" || e.key === "ArrowLeft"
          ? Math.max(at - 1, 0)
          : e.key === "Home"
            ? 0
            : e.key === "End"
              ? buttons.length - 1
              : null;
    if (to === null) return;
    e.preventDefault();
    buttons[to]!.focus();
  };
  const onDragStart = (e: DragEvent<HTMLButtonElement>, type: StepType) => {
    e.dataTransfer.setData(PALETTE_MIME, type);
    e.dataTransfer.setData("text/plain", type);
    e.dataTransfer.effectAllowed = "copy";
  };
  return (
    <aside className={styles.palette} aria-label="Step palette">
      <label htmlFor={searchId} className="sr-only">
        Search steps
      </label>
      <input
        id={searchId}
        type="search"
        placeholder="Search steps…"
        value={query}
        onChange={(e) => setQuery(e.target.value)}
      />
      <div
        role="toolbar"
        aria-orientation="vertical"
        aria-label="Step types"
        onKeyDown={onListKeyDown}
      >
        {groups.map((g) => (
          <section key={g.category} aria-label={CATEGORY_LABELS[g.category]}>
            <h3>{CATEGORY_LABELS[g.category]}</h3>
            <ul>
              {g.types.map((t) => {
                const info = STEP_CATALOG[t];
                return (
                  <li key={t}>
                    <button
                      type="button"
                      className={styles.item}
                      draggable={!disabled}
                      disabled={disabled}
                      onDragStart={(e) => onDragStart(e, t)}
                      onClick={() => onAdd(t)}
                      onFocus={() => setActive(t)}
                      tabIndex={t === tabStop ? 0 : -1}
                      aria-label={`Add ${info.label}`}
                      title={oneLine(info.description)}
                    >
                      <StepIcon icon={info.icon} className={styles.icon} />
                      <span className={styles.label}>{info.label}</span>
                    </button>
                  </li>
                );
              })}
            </ul>
          </section>
        ))}
        {groups.length === 0 ? <p className="muted small">No step type matches.</p> : null}
      </div>
    </aside>
  );
});
