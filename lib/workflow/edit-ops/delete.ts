/** Deleting steps (lib/workflow/edit-ops) and the references a delete leaves dangling. */
import { isPlainObject } from "../json";
import { definitionReferences, forEachStep } from "../refs";
import type { Location } from "../template-scan";
import { levelsOf, loopBodyOf, updateLevel, type GraphDraft } from "./levels";

// ---------------------------------------------------------------------------------------------
// Delete
// ---------------------------------------------------------------------------------------------

export interface DanglingReference {
  /** The step making the reference, or null for the workflow `output`. */
  readonly stepId: string | null;
  /** The deleted step it refers to. */
  readonly target: string;
  /** Where, relative to the step (e.g. ["config", "url"]) or the definition (["output"]). */
  readonly location: Location;
  /** The reference as written, e.g. "{{ steps.fetch.output.data }}". */
  readonly text: string;
}

/**
 * Removes steps (a loop takes its body with it) and their edges, plus their layout positions;
 * returns the references that now point nowhere, for the validation panel. Edges are not
 * bridged: in explicit graphs the gap is the author's to close (implicit chains close themselves).
 */
export function deleteSteps<T extends GraphDraft & { layout?: unknown }>(
  definition: T,
  ids: readonly string[],
): { definition: T; removed: string[]; dangling: DanglingReference[] } {
  const removed = new Set<string>();
  for (const level of levelsOf(definition)) {
    for (const step of level.steps) {
      if (!ids.includes(step.id)) continue;
      removed.add(step.id);
      const body = loopBodyOf(step);
      if (body) forEachStep(body, (s) => typeof s.id === "string" && removed.add(s.id));
    }
  }
  let next = definition;
  for (const level of levelsOf(definition)) {
    if (!level.steps.some((s) => removed.has(s.id))) continue;
    if (level.loopPath.some((loopId) => removed.has(loopId))) continue;
    next = updateLevel(next, level.loopPath, (g) => ({
      steps: g.steps.filter((s) => !removed.has(s.id)),
      edges: g.edges?.filter((e) => !removed.has(e.from) && !removed.has(e.to)),
    }));
  }
  next = withoutPositions(next, removed);
  return { definition: next, removed: [...removed], dangling: danglingReferences(next, removed) };
}

function withoutPositions<T extends { layout?: unknown }>(
  definition: T,
  ids: ReadonlySet<string>,
): T {
  const layout = definition.layout;
  if (!isPlainObject(layout) || !isPlainObject(layout.positions)) return definition;
  const positions = Object.fromEntries(
    Object.entries(layout.positions).filter(([id]) => !ids.has(id)),
  );
  return { ...definition, layout: { ...layout, positions } };
}

/** References from the definition to any of `targets` (steps that do not exist). */
export function danglingReferences(
  definition: unknown,
  targets: ReadonlySet<string>,
): DanglingReference[] {
  const refs = definitionReferences(definition);
  const out: DanglingReference[] = [];
  const collect = (stepId: string | null, references: (typeof refs.output)["references"]) => {
    for (const { reference, location } of references) {
      if (reference.root === "steps" && targets.has(reference.stepId))
        out.push({
          stepId,
          target: reference.stepId,
          location,
          text: `{{ ${reference.path.source} }}`,
        });
    }
  };
  for (const [stepId, summary] of refs.steps) collect(stepId, summary.references);
  collect(null, refs.output.references);
  return out;
}
