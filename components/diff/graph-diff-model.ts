/**
 * Pure mapping from two definitions to the union graph the diff canvas draws: every step and edge
 * of either side, each marked added / removed / changed / unchanged. Removed steps keep their
 * place next to their former predecessor so the picture reads like the old graph with the change
 * applied. The structural diff itself is lib/workflow's `diffDefinitions` (not re-derived here).
 */
import {
  diffDefinitions,
  edgeKey,
  effectiveEdges,
  normalizeDefinition,
  type DefinitionDiff,
  type Edge,
  type FieldChange,
  type GraphDiff,
  type Step,
} from "@/lib/workflow";
import type { GraphEdgeInput, LayoutInput } from "@/components/workflow-graph/layout";

export const DIFF_STATUSES = ["added", "removed", "changed", "unchanged"] as const;
export type DiffStatus = (typeof DIFF_STATUSES)[number];

/** The marker shown in text next to the colour, so colour is never the only signal. */
export const STATUS_TEXT: Record<DiffStatus, { mark: string; label: string }> = {
  added: { mark: "+", label: "added" },
  removed: { mark: "−", label: "removed" },
  changed: { mark: "~", label: "changed" },
  unchanged: { mark: "", label: "unchanged" },
};

export interface DiffGraphModel {
  readonly diff: DefinitionDiff;
  /** Union graph for `layoutGraph`: `statuses` and each edge's `status` are DiffStatus values. */
  readonly layout: LayoutInput & {
    readonly statuses: Readonly<Record<string, DiffStatus>>;
    readonly edges: readonly (GraphEdgeInput & { status: DiffStatus })[];
  };
}

export interface StepDiffDetail {
  readonly id: string;
  readonly status: DiffStatus;
  readonly before: Step | null;
  readonly after: Step | null;
  /** Field changes relative to the step; empty for added, removed and unchanged steps. */
  readonly changes: readonly FieldChange[];
  /** Loop body changes, when the step is a loop whose body changed. */
  readonly body: GraphDiff | null;
}

const keyText = (e: Edge) => {
  const k = edgeKey(e);
  return `${k.from}\u0000${k.port}\u0000${k.to}`;
};

/** Throws DefinitionValidationError when either side is not a valid definition. */
export function buildDiffGraph(before: unknown, after: unknown): DiffGraphModel {
  const a = normalizeDefinition(before);
  const b = normalizeDefinition(after);
  const diff = diffDefinitions(a, b);

  const statuses: Record<string, DiffStatus> = {};
  for (const s of b.steps) statuses[s.id] = "unchanged";
  for (const c of diff.steps.changed) statuses[c.id] = "changed";
  for (const s of diff.steps.added) statuses[s.id] = "added";
  for (const s of diff.steps.removed) statuses[s.id] = "removed";

  const union: Step[] = [...b.steps];
  a.steps.forEach((step, i) => {
    if (statuses[step.id] !== "removed") return;
    let at = 0;
    for (let j = i - 1; j >= 0; j--) {
      const k = union.findIndex((s) => s.id === a.steps[j]!.id);
      if (k >= 0) {
        at = k + 1;
        break;
      }
    }
    union.splice(at, 0, step);
  });

  const added = new Set(diff.edges.added.map(keyText));
  const changed = new Set(diff.edges.changed.map((c) => keyText(c.after)));
  const edges: (GraphEdgeInput & { status: DiffStatus })[] = [
    ...effectiveEdges(b.steps, b.edges).map((e) => ({
      from: e.from,
      to: e.to,
      port: edgeKey(e).port,
      status: (added.has(keyText(e))
        ? "added"
        : changed.has(keyText(e))
          ? "changed"
          : "unchanged") as DiffStatus,
    })),
    ...diff.edges.removed.map((e) => ({
      from: e.from,
      to: e.to,
      port: edgeKey(e).port,
      status: "removed" as const,
    })),
  ];

  const positions = { ...a.layout?.positions, ...b.layout?.positions };
  return {
    diff,
    layout: {
      steps: union.map((s) => ({ id: s.id, type: s.type, ...(s.name ? { name: s.name } : {}) })),
      edges,
      positions: Object.fromEntries(
        Object.entries(positions).map(([id, p]) => [id, { x: p.x, y: p.y }]),
      ),
      statuses,
    },
  };
}

/** What the step panel shows for one step of the union graph (null for an unknown id). */
export function stepDiffDetail(
  before: unknown,
  after: unknown,
  diff: DefinitionDiff,
  stepId: string,
): StepDiffDetail | null {
  const a = normalizeDefinition(before).steps.find((s) => s.id === stepId) ?? null;
  const b = normalizeDefinition(after).steps.find((s) => s.id === stepId) ?? null;
  if (!a && !b) return null;
  const change = diff.steps.changed.find((c) => c.id === stepId);
  const status: DiffStatus = !a ? "added" : !b ? "removed" : change ? "changed" : "unchanged";
  return {
    id: stepId,
    status,
    before: a,
    after: b,
    changes: change?.changes ?? [],
    body: change?.body ?? null,
  };
}
