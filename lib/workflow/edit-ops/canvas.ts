/**
 * The canvas's edits: adding an unconnected step where it was dropped, removing edges, and
 * everything stored in `layout` (positions, viewport, sticky notes) — plus finding steps. Pure
 * functions over the authoring shape, like the rest of edit-ops: untouched parts stay exactly
 * as written.
 */
import { defaultPortOf } from "../catalog";
import { isPlainObject } from "../json";
import type { EdgeInput, StepType } from "../steps";
import { pasteSteps } from "./clipboard";
import type { EdgeRef } from "./fields";
import { newStep } from "./insert";
import {
  levelsOf,
  materializedEdges,
  updateLevel,
  type Definition,
  type EditResult,
  type GraphDraft,
  type Level,
  type XY,
} from "./levels";

/** A definition whose `steps` is an array: the least the canvas needs to draw it. */
export function isGraphDraft(value: unknown): value is Definition & GraphDraft {
  return (
    isPlainObject(value) &&
    Array.isArray(value.steps) &&
    value.steps.every((s) => isPlainObject(s) && typeof s.id === "string") &&
    (value.edges === undefined ||
      (Array.isArray(value.edges) &&
        value.edges.every(
          (e) => isPlainObject(e) && typeof e.from === "string" && typeof e.to === "string",
        )))
  );
}

/** The level a loop path names (the top level for []), if it still exists. */
export function levelAt(definition: GraphDraft, loopPath: readonly string[]): Level | undefined {
  const key = loopPath.join("/");
  return levelsOf(definition).find((l) => l.loopPath.join("/") === key);
}

/**
 * Removes edges (matched by from, port and to, in whichever level holds them). A level in
 * implicit array order is written out first, so removing one link of the chain keeps the rest.
 */
export function removeEdges<T extends GraphDraft>(definition: T, edges: readonly EdgeRef[]): T {
  let next = definition;
  for (const level of levelsOf(definition)) {
    const types = new Map(level.steps.map((s) => [s.id, s.type]));
    const portOf = (e: EdgeInput) => e.port ?? defaultPortOf(types.get(e.from) ?? "");
    const hit = (e: EdgeInput) =>
      edges.some((r) => r.from === e.from && r.to === e.to && r.port === portOf(e));
    const written = materializedEdges(level);
    if (!written.some(hit)) continue;
    next = updateLevel(next, level.loopPath, () => ({
      steps: level.steps,
      edges: written.filter((e) => !hit(e)),
    }));
  }
  return next;
}

/**
 * A new step of `type` (fresh id, starter config) added unconnected to the level at `loopPath`
 * — a drop on the canvas, where no edge is implied. An implicit-order level is written out
 * first, or the new step would silently join the end of the chain.
 */
export function addStep<T extends GraphDraft>(
  definition: T,
  type: StepType,
  loopPath: readonly string[] = [],
): EditResult<{ definition: T; id: string }> {
  const { id, step } = newStep(definition, type);
  const into = loopPath[loopPath.length - 1];
  const result = pasteSteps(
    definition,
    { steps: [step], edges: [] },
    into === undefined ? {} : { into },
  );
  if (!result.ok) return result;
  return { ok: true, definition: result.definition, id: result.ids[0] ?? id };
}

// ---------------------------------------------------------------------------------------------
// Layout: positions, viewport, sticky notes (never part of the hash, never a version)
// ---------------------------------------------------------------------------------------------

export interface Viewport {
  readonly x: number;
  readonly y: number;
  readonly zoom: number;
}

/** A sticky note on the canvas; `loop` places it inside that loop's body view. */
export interface StickyNote {
  readonly id: string;
  readonly text: string;
  readonly x: number;
  readonly y: number;
  readonly loop?: string;
}

function layoutOf(definition: Definition): Record<string, unknown> {
  return isPlainObject(definition.layout) ? definition.layout : {};
}

export function positionsOf(definition: Definition): Record<string, XY> {
  const positions = layoutOf(definition).positions;
  if (!isPlainObject(positions)) return {};
  const out: Record<string, XY> = {};
  for (const [id, p] of Object.entries(positions))
    if (isPlainObject(p) && typeof p.x === "number" && typeof p.y === "number")
      out[id] = { x: p.x, y: p.y };
  return out;
}

/** Merges positions into `layout.positions` (rounded: sub-pixel drags are noise in the JSON). */
export function withPositions<T extends Definition>(
  definition: T,
  positions: Readonly<Record<string, XY>>,
): T {
  const layout = layoutOf(definition);
  const rounded = Object.fromEntries(
    Object.entries(positions).map(([id, p]) => [id, { x: Math.round(p.x), y: Math.round(p.y) }]),
  );
  return {
    ...definition,
    layout: { ...layout, positions: { ...positionsOf(definition), ...rounded } },
  };
}

export function viewportOf(definition: Definition): Viewport | undefined {
  const v = layoutOf(definition).viewport;
  return isPlainObject(v) &&
    typeof v.x === "number" &&
    typeof v.y === "number" &&
    typeof v.zoom === "number"
    ? { x: v.x, y: v.y, zoom: v.zoom }
    : undefined;
}

export function withViewport<T extends Definition>(definition: T, viewport: Viewport): T {
  const round = (n: number, digits: number) => Number(n.toFixed(digits));
  return {
    ...definition,
    layout: {
      ...layoutOf(definition),
      viewport: { x: round(viewport.x, 0), y: round(viewport.y, 0), zoom: round(viewport.zoom, 3) },
    },
  };
}

export function notesOf(definition: Definition): StickyNote[] {
  const notes = layoutOf(definition).notes;
  if (!Array.isArray(notes)) return [];
  return notes.filter(
    (n): n is StickyNote =>
      isPlainObject(n) &&
      typeof n.id === "string" &&
      typeof n.text === "string" &&
      typeof n.x === "number" &&
      typeof n.y === "number",
  );
}

/** Replaces `layout.notes` (dropped when empty). */
export function withNotes<T extends Definition>(definition: T, notes: readonly StickyNote[]): T {
  const layout: Record<string, unknown> = { ...layoutOf(definition) };
  if (notes.length) layout.notes = notes;
  else delete layout.notes;
  return { ...definition, layout };
}

/** Prefix of note node ids on the canvas: a note can never collide with a step id (no colon). */
export const NOTE_PREFIX = "note:";

export function addNote<T extends Definition>(
  definition: T,
  at: XY,
  loop?: string,
): { definition: T; id: string } {
  const notes = notesOf(definition);
  const taken = new Set(notes.map((n) => n.id));
  let n = notes.length + 1;
  while (taken.has(`n${n}`)) n++;
  const note: StickyNote = {
    id: `n${n}`,
    text: "",
    x: Math.round(at.x),
    y: Math.round(at.y),
    ...(loop ? { loop } : {}),
  };
  return { definition: withNotes(definition, [...notes, note]), id: note.id };
}

export function updateNotes<T extends Definition>(
  definition: T,
  update: (note: StickyNote) => StickyNote | null,
): T {
  const notes = notesOf(definition);
  const next = notes.flatMap((n) => update(n) ?? []);
  return withNotes(definition, next);
}

// ---------------------------------------------------------------------------------------------
// Find
// ---------------------------------------------------------------------------------------------

export interface StepMatch {
  readonly id: string;
  readonly name?: string;
  readonly type: string;
  readonly loopPath: readonly string[];
}

/**
 * Steps whose id, name or type contains the query (case-insensitive), every level; exact id
 * matches first, then id prefixes, then the rest in definition order.
 */
export function findSteps(definition: GraphDraft, query: string): StepMatch[] {
  const q = query.trim().toLowerCase();
  if (!q) return [];
  const out: { match: StepMatch; rank: number; order: number }[] = [];
  let order = 0;
  for (const level of levelsOf(definition)) {
    for (const step of level.steps) {
      const id = step.id.toLowerCase();
      const name = typeof step.name === "string" ? step.name : undefined;
      const rank =
        id === q
          ? 0
          : id.startsWith(q)
            ? 1
            : id.includes(q) || name?.toLowerCase().includes(q)
              ? 2
              : step.type.toLowerCase().includes(q)
                ? 3
                : -1;
      if (rank >= 0)
        out.push({
          match: {
            id: step.id,
            type: step.type,
            loopPath: level.loopPath,
            ...(name !== undefined ? { name } : {}),
          },
          rank,
          order: order++,
        });
    }
  }
  return out.sort((a, b) => a.rank - b.rank || a.order - b.order).map((m) => m.match);
}
