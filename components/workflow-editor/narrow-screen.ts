"use client";
import { useSyncExternalStore } from "react";

/**
 * Below this width the editor opens read-only (issue #26.9): a palette, a canvas and an
 * inspector do not fit a phone, so the canvas is shown alone to look at and pan.
 */
export const NARROW_EDITOR_QUERY = "(max-width: 720px)";

function subscribe(listener: () => void) {
  const query = window.matchMedia(NARROW_EDITOR_QUERY);
  query.addEventListener("change", listener);
  return () => query.removeEventListener("change", listener);
}

/** Whether the window is too narrow to edit in (false on the server). */
export function useIsNarrowScreen(): boolean {
  return useSyncExternalStore(
    subscribe,
    () => window.matchMedia(NARROW_EDITOR_QUERY).matches,
    () => false,
  );
}
