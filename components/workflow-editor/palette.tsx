"use client";
import { memo, useId, useMemo, useState, type DragEvent } from "react";
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
      <div>
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
