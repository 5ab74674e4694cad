/**
 * Which editor panels a person has collapsed (the mini map counts as one), kept in localStorage under a key per user (two
 * people sharing a browser keep their own). Read through useSyncExternalStore: the server and
 * the first client render show every panel open, then the stored state applies without a
 * hydration mismatch.
 */
import { useCallback, useSyncExternalStore } from "react";

export const EDITOR_PANELS = ["palette", "inspector", "problems", "minimap"] as const;
export type EditorPanel = (typeof EDITOR_PANELS)[number];
const isPanel = (v: unknown): v is EditorPanel => EDITOR_PANELS.includes(v as EditorPanel);

export const panelStorageKey = (userId: string) => `sluice.editor.collapsed.${userId}`;

/** The collapsed panels stored under `raw` (anything unreadable counts as none). */
export function parseCollapsed(raw: string | null): ReadonlySet<EditorPanel> {
  if (!raw) return new Set();
  try {
    const value: unknown = JSON.parse(raw);
    if (!Array.isArray(value)) return new Set();
    return new Set(value.filter(isPanel));
  } catch {
    // A hand-edited or foreign value: start with every panel open rather than fail the editor.
    return new Set();
  }
}

const listeners = new Set<() => void>();
function subscribe(listener: () => void) {
  listeners.add(listener);
  window.addEventListener("storage", listener);
  return () => {
    listeners.delete(listener);
    window.removeEventListener("storage", listener);
  };
}

export function usePanelOpen(
  userId: string,
  panel: EditorPanel,
): [isOpen: boolean, setOpen: (open: boolean) => void] {
  const key = panelStorageKey(userId);
  const raw = useSyncExternalStore(
    subscribe,
    () => window.localStorage.getItem(key),
    () => null,
  );
  const isOpen = !parseCollapsed(raw).has(panel);
  const setOpen = useCallback(
    (open: boolean) => {
      const next = new Set(parseCollapsed(window.localStorage.getItem(key)));
      if (open) next.delete(panel);
      else next.add(panel);
      window.localStorage.setItem(key, JSON.stringify([...next].sort()));
      for (const l of listeners) l();
    },
    [key, panel],
  );
  return [isOpen, setOpen];
}
