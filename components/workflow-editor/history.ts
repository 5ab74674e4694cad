/**
 * Undo/redo for the editor as an immutable value (no React, no timers): every operation returns a
 * new history, so it sits in a `useReducer` or a store as is. Rapid edits of the same field
 * coalesce into one entry: the caller passes a key (e.g. "deploy.config.url") and the time of
 * the edit, and pushes with the same key within `coalesceMs` of the previous one replace it.
 */

export interface HistoryOptions<T> {
  /** Undo entries kept; the oldest are dropped beyond it (default 100). */
  readonly limit?: number;
  /** Window within which pushes with the same key coalesce (default 1000 ms). */
  readonly coalesceMs?: number;
  /** Pushing a state equal to the present is a no-op (default Object.is). */
  readonly equals?: (a: T, b: T) => boolean;
}

export interface PushOptions {
  /** Edits with the same key in quick succession become one undo step; no key never coalesces. */
  readonly key?: string;
  /** When the edit happened (ms, e.g. event.timeStamp or Date.now()); needed for coalescing. */
  readonly at?: number;
}

export interface History<T> {
  readonly present: T;
  /** Older states, oldest first. */
  readonly past: readonly T[];
  /** States undone, next redo first. */
  readonly future: readonly T[];
  readonly canUndo: boolean;
  readonly canRedo: boolean;
  push(state: T, options?: PushOptions): History<T>;
  undo(): History<T>;
  redo(): History<T>;
  /**
   * Swaps the present without an undo entry and without touching the stacks (e.g. the saved
   * viewport: panning is not an edit anyone wants to undo).
   */
  replace(state: T): History<T>;
  /** Starts over from `state` with no undo entries (e.g. after loading another version). */
  reset(state: T): History<T>;
}

interface Settings<T> {
  readonly limit: number;
  readonly coalesceMs: number;
  readonly equals: (a: T, b: T) => boolean;
}

interface LastEdit {
  readonly key: string;
  readonly at: number;
}

export function createHistory<T>(initial: T, options: HistoryOptions<T> = {}): History<T> {
  const limit = options.limit ?? 100;
  if (!Number.isInteger(limit) || limit < 1)
    throw new RangeError(`History limit must be a positive integer, got ${limit}.`);
  const settings: Settings<T> = {
    limit,
    coalesceMs: options.coalesceMs ?? 1000,
    equals: options.equals ?? Object.is,
  };
  return make(settings, [], initial, [], null);
}

function make<T>(
  settings: Settings<T>,
  past: readonly T[],
  present: T,
  future: readonly T[],
  last: LastEdit | null,
): History<T> {
  return Object.freeze({
    present,
    past,
    future,
    canUndo: past.length > 0,
    canRedo: future.length > 0,
    push(state: T, options: PushOptions = {}): History<T> {
      if (settings.equals(state, present)) return this;
      const { key, at } = options;
      const edit = key !== undefined && at !== undefined ? { key, at } : null;
      const coalesce =
        edit !== null &&
        last !== null &&
        past.length > 0 &&
        last.key === edit.key &&
        edit.at >= last.at &&
        edit.at - last.at <= settings.coalesceMs;
      // Coalescing replaces the present, so the entry before the burst stays the undo target.
      if (coalesce) return make(settings, past, state, [], edit);
      const kept =
        past.length >= settings.limit ? past.slice(past.length - settings.limit + 1) : past;
      return make(settings, [...kept, present], state, [], edit);
    },
    undo(): History<T> {
      if (past.length === 0) return this;
      return make(settings, past.slice(0, -1), past[past.length - 1]!, [present, ...future], null);
    },
    redo(): History<T> {
      if (future.length === 0) return this;
      return make(settings, [...past, present], future[0]!, future.slice(1), null);
    },
    replace(state: T): History<T> {
      if (settings.equals(state, present)) return this;
      return make(settings, past, state, future, last);
    },
    reset(state: T): History<T> {
      return make(settings, [], state, [], null);
    },
  });
}
