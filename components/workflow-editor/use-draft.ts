"use client";
import { useMutation, useQueryClient } from "@tanstack/react-query";
import { useCallback, useDeferredValue, useEffect, useMemo, useRef, useState } from "react";
import type { EditorIssue } from "@/components/workflows/issue-list";
import { useTRPC } from "@/lib/trpc/client";
import { hashNormalizedDefinition, validateDefinition } from "@/lib/workflow";
import type { Definition } from "@/lib/workflow/edit-ops";
import { createHistory, type History } from "./history";

export type SaveState =
  | { kind: "saved"; at: Date }
  | { kind: "dirty" }
  | { kind: "saving" }
  | { kind: "error"; message: string }
  | { kind: "conflict"; message: string };

/** A new definition, or a function of the latest one (for edits computed from a rendered prop). */
export type DefinitionUpdate = Definition | ((latest: Definition) => Definition);

export type ParsedDraft =
  { ok: true; value: unknown; definition: Definition | null } | { ok: false; error: string };

export interface EditOptions {
  /** Edits with the same key within a second become one undo step. */
  readonly key?: string;
  /** Not an undo step at all (the viewport): replaces the present entry. */
  readonly silent?: boolean;
}

const AUTOSAVE_MS = 1200;

/**
 * The draft both views edit: its text (the single source of truth, so switching views never
 * loses an edit), the parse and validation of it, undo/redo over it (canvas, inspector and JSON
 * edits share one history) and autosave with optimistic concurrency. On a conflict the author
 * chooses: reload the other save, or overwrite it (saveDraft without a base revision).
 */
export function useDraft({
  workflowId,
  initial,
  readOnly,
}: {
  workflowId: string;
  initial: { text: string; revision: number; savedAt: Date };
  readOnly: boolean;
}) {
  const trpc = useTRPC();
  const qc = useQueryClient();
  // The history lives in a ref that every edit updates at once, and in state for rendering: two
  // edits landing before React re-renders (a connect and a drag end on one pointerup, two quick
  // picker connects) each build on the one before instead of on the last rendered definition.
  const [history, setHistoryState] = useState<History<string>>(() =>
    createHistory(initial.text, { limit: 200 }),
  );
  const historyRef = useRef(history);
  const setHistory = useCallback((update: (h: History<string>) => History<string>) => {
    const next = update(historyRef.current);
    if (next === historyRef.current) return;
    historyRef.current = next;
    setHistoryState(next);
  }, []);
  const text = history.present;
  const [save, setSave] = useState<SaveState>({ kind: "saved", at: initial.savedAt });
  // What the server has: the text last saved and its draft revision.
  const [saved, setSaved] = useState({ text: initial.text, revision: initial.revision });

  // The object behind the text set last by setDefinition: reused instead of re-parsing, so the
  // steps an edit did not touch keep their identity (the canvas then re-renders only what changed).
  const [lastSet] = useState(() => new Map<string, Definition>());
  // The last parse, shared by the render and `latest()` so a draft is parsed once per text.
  const [lastParse] = useState(() => new Map<string, ParsedDraft>());
  const parseDraft = useCallback(
    (source: string): ParsedDraft => {
      const known = lastSet.get(source);
      if (known) return { ok: true, value: known, definition: known };
      const seen = lastParse.get(source);
      if (seen) return seen;
      let result: ParsedDraft;
      try {
        const value = JSON.parse(source) as unknown;
        const definition =
          typeof value === "object" && value !== null && !Array.isArray(value)
            ? (value as Definition)
            : null;
        result = { ok: true, value, definition };
      } catch (e) {
        result = { ok: false, error: (e as Error).message };
      }
      lastParse.clear();
      lastParse.set(source, result);
      return result;
    },
    [lastSet, lastParse],
  );
  const parsed = useMemo(() => parseDraft(text), [parseDraft, text]);
  /**
   * The definition as of the latest edit, even one React has not rendered yet (null when the
   * text is not a JSON object). Canvas handlers build their edits from it.
   */
  const latest = useCallback((): Definition | null => {
    const result = parseDraft(historyRef.current.present);
    return result.ok ? result.definition : null;
  }, [parseDraft]);
  // Validation and hashing (tens of ms at 1,000 steps) run at a lower priority than the edit
  // itself: the canvas shows a new node at once, its issue badges follow a moment later.
  const checked = useDeferredValue(parsed);

  const { issues, draftHash } = useMemo((): {
    issues: EditorIssue[];
    draftHash: string | null;
  } => {
    if (!checked.ok)
      return {
        issues: [
          {
            severity: "error",
            code: "JSON_SYNTAX",
            message: `Not valid JSON: ${checked.error}`,
            path: [],
          },
        ],
        draftHash: null,
      };
    const result = validateDefinition(checked.value);
    // Hashed exactly as publishing does (lib/workflow/hash.ts is isomorphic), so the editor knows
    // "identical to the current version" before the server would answer "unchanged".
    return {
      issues: result.issues,
      draftHash:
        result.ok && result.definition ? hashNormalizedDefinition(result.definition) : null,
    };
  }, [checked]);

  const setText = useCallback(
    (next: string, options: EditOptions = {}) => {
      setHistory((h) =>
        options.silent ? h.replace(next) : h.push(next, { key: options.key, at: Date.now() }),
      );
    },
    [setHistory],
  );
  /**
   * Lands an edit. An updater receives the latest definition (see `latest`); a value should be
   * built from `latest()` too, never from a rendered prop that an unrendered edit made stale.
   */
  const setDefinition = useCallback(
    (update: DefinitionUpdate, options: EditOptions = {}) => {
      let next: Definition;
      if (typeof update === "function") {
        const base = latest();
        if (!base) return;
        next = update(base);
        if (next === base) return;
      } else next = update;
      const text = JSON.stringify(next, null, 2);
      lastSet.clear();
      lastSet.set(text, next);
      setText(text, options);
    },
    [setText, lastSet, latest],
  );
  const undo = useCallback(() => setHistory((h) => h.undo()), [setHistory]);
  const redo = useCallback(() => setHistory((h) => h.redo()), [setHistory]);

  const { mutateAsync: saveDraft } = useMutation(trpc.workflow.saveDraft.mutationOptions());
  const write = useCallback(
    async (force: boolean) => {
      if (readOnly || !parsed.ok || (text === saved.text && !force)) return;
      setSave({ kind: "saving" });
      try {
        const res = await saveDraft({
          workflowId,
          definition: parsed.value,
          // No base revision = overwrite whatever is there ("Keep mine").
          ...(force ? {} : { baseRevision: saved.revision }),
        });
        setSaved({ text, revision: res.revision });
        setSave({ kind: "saved", at: new Date(res.savedAt) });
        void qc.invalidateQueries({ queryKey: trpc.workflow.get.queryKey({ workflowId }) });
      } catch (e) {
        const err = e as { message: string; data?: { code?: string } };
        setSave(
          err.data?.code === "CONFLICT"
            ? { kind: "conflict", message: err.message }
            : { kind: "error", message: err.message },
        );
      }
    },
    [readOnly, parsed, text, saved, saveDraft, workflowId, qc, trpc],
  );
  const doSave = useCallback(() => write(false), [write]);
  const keepMine = useCallback(() => write(true), [write]);

  /** Replaces the local draft with the server's (after a conflict); undo starts over. */
  const reloadTheirs = useCallback(async () => {
    const wf = await qc.fetchQuery({
      ...trpc.workflow.get.queryOptions({ workflowId }),
      staleTime: 0,
    });
    const theirs = JSON.stringify(wf.draft, null, 2);
    setHistory((h) => h.reset(theirs));
    setSaved({ text: theirs, revision: wf.draftRevision });
    setSave({ kind: "saved", at: new Date(wf.draftUpdatedAt) });
  }, [qc, trpc, workflowId, setHistory]);

  const dirty = text !== saved.text;
  const blocked = save.kind === "conflict" || save.kind === "saving";
  useEffect(() => {
    if (!dirty || !parsed.ok || readOnly || blocked) return;
    const t = setTimeout(() => void doSave(), AUTOSAVE_MS);
    return () => clearTimeout(t);
  }, [dirty, parsed.ok, readOnly, blocked, doSave]);

  useEffect(() => {
    if (!dirty) return;
    const onUnload = (e: BeforeUnloadEvent) => e.preventDefault();
    window.addEventListener("beforeunload", onUnload);
    return () => window.removeEventListener("beforeunload", onUnload);
  }, [dirty]);

  return {
    text,
    setText,
    setDefinition,
    latest,
    parsed,
    issues,
    draftHash,
    save: dirty && save.kind === "saved" ? ({ kind: "dirty" } as const) : save,
    savedRevision: saved.revision,
    dirty,
    doSave,
    keepMine,
    reloadTheirs,
    undo,
    redo,
    canUndo: history.canUndo,
    canRedo: history.canRedo,
  };
}

export type Draft = ReturnType<typeof useDraft>;
