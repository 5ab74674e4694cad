/** Copy, paste and duplicate (lib/workflow/edit-ops). */
import { isPlainObject } from "../json";
import { STEP_ID_PATTERN } from "../primitives";
import type { EdgeInput, StepInput } from "../steps";
import { tryRenameStep } from "./connect";
import { freshStepId, stepIdsOf } from "./insert";
import {
  levelOf,
  levelsOf,
  loopBodyOf,
  materializedEdges,
  refuse,
  stepIn,
  updateLevel,
  type EditResult,
  type GraphDraft,
} from "./levels";

// ---------------------------------------------------------------------------------------------
// Clipboard
// ---------------------------------------------------------------------------------------------

/**
 * What copy puts on the clipboard: definition JSON in the shape of a loop body (steps + the
 * edges among them), so it pastes into another workflow, a loop body or the JSON view.
 */
export interface StepClipboard {
  readonly steps: StepInput[];
  readonly edges: EdgeInput[];
}

/** Copies the steps (in definition order, loop bodies included) and the edges among them. */
export function copySteps(definition: GraphDraft, stepIds: readonly string[]): StepClipboard {
  const wanted = new Set(stepIds);
  const steps: StepInput[] = [];
  const edges: EdgeInput[] = [];
  for (const level of levelsOf(definition)) {
    if (level.loopPath.some((loopId) => wanted.has(loopId))) continue; // copied with its loop
    const picked = level.steps.filter((s) => wanted.has(s.id));
    if (picked.length === 0) continue;
    steps.push(...picked);
    edges.push(...materializedEdges(level).filter((e) => wanted.has(e.from) && wanted.has(e.to)));
  }
  return structuredClone({ steps, edges });
}

/** Reads a clipboard payload (parsed JSON); a single step object is accepted too. */
export function readClipboard(value: unknown): StepClipboard | undefined {
  if (isPlainObject(value) && Array.isArray(value.steps) && value.steps.every(isStepLike)) {
    const edges = Array.isArray(value.edges) ? value.edges.filter(isEdgeLike) : [];
    return { steps: value.steps as StepInput[], edges: edges as EdgeInput[] };
  }
  if (isStepLike(value)) return { steps: [value as StepInput], edges: [] };
  return undefined;
}

function isStepLike(value: unknown): boolean {
  return isPlainObject(value) && typeof value.id === "string" && typeof value.type === "string";
}

function isEdgeLike(value: unknown): boolean {
  return isPlainObject(value) && typeof value.from === "string" && typeof value.to === "string";
}

export interface PasteOptions {
  /** Paste into this loop's body instead of the top level. */
  readonly into?: string;
}

/**
 * Adds the clipboard's steps: ids that collide (with the definition or each other, loop bodies
 * included) get a fresh suffix (`shape` → `shape_2`) and references inside the pasted steps
 * follow; edges to steps that were not pasted are dropped. The pasted steps connect only among
 * themselves, so an implicit-order level is written out as explicit edges first.
 */
export function pasteSteps<T extends GraphDraft>(
  definition: T,
  payload: StepClipboard,
  options: PasteOptions = {},
): EditResult<{ definition: T; ids: string[]; renamed: Record<string, string> }> {
  const clip = readClipboard(payload);
  if (!clip || clip.steps.length === 0) return refuse("The clipboard holds no steps.");
  let loopPath: readonly string[] = [];
  if (options.into !== undefined) {
    const level = levelOf(definition, options.into);
    const loop = level ? stepIn(level, options.into) : undefined;
    if (!level || !loop || !loopBodyOf(loop))
      return refuse(`There is no loop with a body called "${options.into}".`);
    loopPath = [...level.loopPath, options.into];
  }
  const taken = stepIdsOf(definition);
  const clipIds = stepIdsOf(clip);
  const reserved = new Set([...taken, ...clipIds]);
  let pasted: GraphDraft = {
    steps: structuredClone(clip.steps),
    edges: structuredClone(clip.edges),
  };
  const renamed: Record<string, string> = {};
  for (const id of clipIds) {
    if (!taken.has(id) && STEP_ID_PATTERN.test(id)) continue;
    const fresh = freshStepId(id, reserved);
    reserved.add(fresh);
    const result = tryRenameStep(pasted, id, fresh);
    if (!result.ok) return result;
    pasted = result.definition;
    renamed[id] = fresh;
  }
  const ids = new Set(pasted.steps.map((s) => s.id));
  const edges = (pasted.edges ?? []).filter((e) => ids.has(e.from) && ids.has(e.to));
  return {
    ok: true,
    ids: [...ids],
    renamed,
    definition: updateLevel(definition, loopPath, (g) => ({
      steps: [...g.steps, ...pasted.steps],
      edges: [...materializedEdges(g), ...edges],
    })),
  };
}

/** Copy + paste into the same level as the first of the steps. */
export function duplicateSteps<T extends GraphDraft>(
  definition: T,
  stepIds: readonly string[],
): EditResult<{ definition: T; ids: string[]; renamed: Record<string, string> }> {
  const level = stepIds.length ? levelOf(definition, stepIds[0]!) : undefined;
  if (!level)
    return refuse(stepIds.length ? `There is no step "${stepIds[0]}".` : "No steps selected.");
  const loopId = level.loopPath[level.loopPath.length - 1];
  return pasteSteps(
    definition,
    copySteps(definition, stepIds),
    loopId === undefined ? {} : { into: loopId },
  );
}
