/**
 * The canvas's keyboard shortcuts as data: one table feeds both the key handler and the `?`
 * help popover, so the help can never drift from what the keys do.
 */

export type CanvasAction =
  "undo" | "redo" | "duplicate" | "find" | "connect" | "delete" | "help" | "selectAll" | "escape";

export interface KeyLike {
  readonly key: string;
  readonly ctrlKey: boolean;
  readonly metaKey: boolean;
  readonly shiftKey: boolean;
  readonly altKey: boolean;
}

/** Rows of the help popover. Copy, cut and paste are the browser's own clipboard events. */
export const SHORTCUT_HELP: readonly { keys: string; does: string }[] = [
  { keys: "Tab / Shift+Tab", does: "Move between steps (Enter or Space selects)" },
  { keys: "Arrow keys", does: "Move the selected step" },
  { keys: "Enter on a palette entry", does: "Add that step after the selected one" },
  { keys: "C", does: "Connect the selected step to another…" },
  { keys: "Delete / Backspace", does: "Delete the selection" },
  { keys: "Ctrl/⌘+C, X, V", does: "Copy, cut, paste steps (as definition JSON)" },
  { keys: "Ctrl/⌘+D", does: "Duplicate the selected steps" },
  { keys: "Ctrl/⌘+A", does: "Select every step of this level" },
  { keys: "Ctrl/⌘+Z", does: "Undo" },
  { keys: "Ctrl/⌘+Shift+Z or Ctrl+Y", does: "Redo" },
  { keys: "Ctrl/⌘+F", does: "Find a step (Enter selects and centres it)" },
  { keys: "Shift+drag / Shift+click", does: "Select several steps" },
  { keys: "Double-click a loop", does: "Edit its body" },
  { keys: "?", does: "Show these shortcuts" },
  { keys: "Escape", does: "Clear the selection, close the find box" },
];

/** The action a key press on the canvas means, or null to let it through. */
export function canvasActionOf(e: KeyLike): CanvasAction | null {
  const mod = e.ctrlKey || e.metaKey;
  const key = e.key.length === 1 ? e.key.toLowerCase() : e.key;
  if (mod && !e.altKey) {
    if (key === "z") return e.shiftKey ? "redo" : "undo";
    if (key === "y" && e.ctrlKey && !e.shiftKey) return "redo";
    if (key === "d" && !e.shiftKey) return "duplicate";
    if (key === "f" && !e.shiftKey) return "find";
    if (key === "a" && !e.shiftKey) return "selectAll";
    return null;
  }
  if (e.altKey || e.ctrlKey || e.metaKey) return null;
  if (key === "Delete" || key === "Backspace") return "delete";
  if (key === "Escape") return "escape";
  if (e.key === "?") return "help";
  if (key === "c" && !e.shiftKey) return "connect";
  return null;
}

/**
 * Whether a key event belongs to a text field (inputs, textareas, sticky notes, Monaco):
 * shortcuts and clipboard handling leave those alone.
 */
export function isTextEntry(target: EventTarget | null): boolean {
  if (!target || typeof (target as Element).closest !== "function") return false;
  const el = target as HTMLElement;
  if (el.isContentEditable) return true;
  return el.closest("input, textarea, select, [contenteditable='true'], .monaco-editor") !== null;
}
