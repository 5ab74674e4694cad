"use client";
import {
  useCallback,
  useEffect,
  useMemo,
  useState,
  type KeyboardEvent,
  type RefObject,
} from "react";
import { useToast } from "@/components/ui/toast";
import { copySteps, findSteps, pasteSteps, readClipboard } from "@/lib/workflow/edit-ops";
import type { GraphDefinition } from "./level-canvas";
import { canvasActionOf, isTextEntry } from "./shortcuts";
import type { CanvasEdits } from "./use-canvas-edits";
import type { CanvasSync } from "./use-canvas-sync";
import type { Draft } from "./use-draft";

/**
 * The canvas's keyboard: shortcuts (shortcuts.ts maps keys to actions), copy / cut / paste of
 * steps, find, the Connect… picker and the shortcuts help, and going to a step (here, or in
 * another level).
 */
export function useCanvasKeyboard({
  definition,
  draft,
  sync,
  edits,
  wrapper,
  onSelectElsewhere,
}: {
  definition: GraphDefinition;
  draft: Draft;
  sync: CanvasSync;
  edits: CanvasEdits;
  wrapper: RefObject<HTMLDivElement | null>;
  onSelectElsewhere: (id: string) => void;
}) {
  const { undo, redo } = draft;
  const { getState, queueAfter, selectHere } = sync;
  const { duplicate, deleteSelection, latestDefinition, commit, placePasted } = edits;
  const toast = useToast();

  // Copy, cut and paste while focus is on the canvas (not in a text field): steps as JSON.
  useEffect(() => {
    const onCanvas = () => {
      const active = document.activeElement;
      return !!active && !!wrapper.current?.contains(active) && !isTextEntry(active);
    };
    const copy = (e: ClipboardEvent, cut: boolean) => {
      if (!onCanvas()) return;
      const { selectedSteps: ids, readOnly: ro } = getState();
      const def = latestDefinition();
      if (!ids.length) return;
      e.clipboardData?.setData("text/plain", JSON.stringify(copySteps(def, ids), null, 2));
      e.preventDefault();
      if (cut && !ro) deleteSelection();
    };
    const onCopy = (e: ClipboardEvent) => copy(e, false);
    const onCut = (e: ClipboardEvent) => copy(e, true);
    const onPaste = (e: ClipboardEvent) => {
      if (!onCanvas() || getState().readOnly) return;
      const text = e.clipboardData?.getData("text/plain") ?? "";
      let value: unknown;
      try {
        value = JSON.parse(text);
      } catch {
        toast("The clipboard does not hold step JSON.", "error");
        return;
      }
      const clip = readClipboard(value);
      e.preventDefault();
      if (!clip) return toast("The clipboard does not hold steps.", "error");
      const { loopId: into } = getState();
      const def = latestDefinition();
      const r = pasteSteps(def, clip, into === undefined ? {} : { into });
      if (!r.ok) return toast(r.reason, "error");
      commit(placePasted(r.definition, r.ids, r.renamed), undefined, r.ids);
    };
    document.addEventListener("copy", onCopy);
    document.addEventListener("cut", onCut);
    document.addEventListener("paste", onPaste);
    return () => {
      document.removeEventListener("copy", onCopy);
      document.removeEventListener("cut", onCut);
      document.removeEventListener("paste", onPaste);
    };
  }, [latestDefinition, commit, deleteSelection, placePasted, toast, getState, wrapper]);
  const [findOpen, setFindOpen] = useState(false);
  const [query, setQuery] = useState("");
  const matches = useMemo(() => findSteps(definition, query), [definition, query]);
  const [connecting, setConnecting] = useState<string | null>(null);
  const [helpOpen, setHelpOpen] = useState(false);

  const goTo = useCallback(
    (id: string) => {
      if (getState().nodes.some((n) => n.id === id)) {
        selectHere(new Set([id]), new Set());
        queueAfter({ center: id });
      } else onSelectElsewhere(id);
    },
    [selectHere, onSelectElsewhere, getState, queueAfter],
  );

  const onKeyDown = useCallback(
    (e: KeyboardEvent) => {
      if (isTextEntry(e.target)) return;
      const action = canvasActionOf(e);
      if (!action) return;
      const ro = getState().readOnly;
      switch (action) {
        case "undo":
        case "redo":
          if (ro) return;
          e.preventDefault();
          if (action === "undo") undo();
          else redo();
          return;
        case "duplicate":
          e.preventDefault();
          if (!ro) duplicate();
          return;
        case "find":
          e.preventDefault();
          setFindOpen(true);
          return;
        case "selectAll":
          e.preventDefault();
          selectHere(new Set(getState().nodes.map((n) => n.id)), new Set());
          return;
        case "delete":
          e.preventDefault();
          if (!ro) deleteSelection();
          return;
        case "connect": {
          const sel = getState().selectedSteps;
          if (ro || sel.length !== 1) return;
          e.preventDefault();
          setConnecting(sel[0]!);
          return;
        }
        case "help":
          e.preventDefault();
          setHelpOpen(true);
          return;
        case "escape":
          setFindOpen(false);
          selectHere(new Set(), new Set());
          return;
      }
    },
    [undo, redo, duplicate, deleteSelection, selectHere, getState],
  );

  return {
    findOpen,
    setFindOpen,
    query,
    setQuery,
    matches,
    connecting,
    setConnecting,
    helpOpen,
    setHelpOpen,
    goTo,
    onKeyDown,
  };
}
