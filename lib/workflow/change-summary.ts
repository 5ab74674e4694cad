/**
 * One readable line per change in a DefinitionDiff, for proposal review, version history and
 * the CLI: `step \`deploy\` (http): config.url, retry.maxAttempts changed`,
 * `edge approve —approved→ deploy: onFailure skip → fail_run`. Loop bodies recurse, their step
 * ids prefixed with the loop's (`each_order/charge`). The diff itself comes from diff.ts.
 */
import type { DefinitionDiff, FieldChange, GraphDiff, KeyedDiff } from "./diff";
import { fieldText } from "./issues";
import { preview } from "./json";
import type { Edge, Step } from "./steps";

export const CHANGE_KINDS = [
  "step",
  "edge",
  "input",
  "variable",
  "constraint",
  "metadata",
] as const;
export type ChangeKind = (typeof CHANGE_KINDS)[number];

export interface ChangeLine {
  kind: ChangeKind;
  change: "added" | "removed" | "changed";
  /** Step id (`loop/inner` inside loop bodies), edge label, input/variable name or field path. */
  target: string;
  message: string;
}

/** Changed field paths listed before "and N more". */
const MAX_FIELDS_LISTED = 6;

export function summarizeChange(diff: DefinitionDiff): ChangeLine[] {
  return [
    ...diff.metadata.map((c) => fieldLine("metadata", c)),
    ...keyedLines("input", diff.inputs),
    ...keyedLines("variable", diff.variables),
    ...diff.constraints.map((c) => fieldLine("constraint", c)),
    ...graphLines(diff, ""),
  ];
}

/** `step \`deploy\` (http)`; `prefix` is the enclosing loop path such as "each_order/". */
export function stepLabel(step: Pick<Step, "id" | "type">, prefix = ""): string {
  return `step \`${prefix}${step.id}\` (${step.type})`;
}

/** `approve —approved→ deploy` (the port is always shown; diff edges carry it). */
export function edgeLabel(edge: Pick<Edge, "from" | "to" | "port">, prefix = ""): string {
  return `${prefix}${edge.from} —${edge.port ?? "success"}→ ${prefix}${edge.to}`;
}

/** A value in a change message: short strings as written, everything else as JSON preview. */
export function showValue(value: unknown): string {
  if (value === undefined) return "(none)";
  if (typeof value === "string" && value.length <= 60 && !/[\s"]/.test(value) && value !== "")
    return value;
  return preview(value);
}

/** `config.url, retry.maxAttempts` (capped). */
export function fieldList(changes: readonly FieldChange[]): string {
  const fields = [...new Set(changes.map((c) => fieldText(c.path) || "value"))];
  const shown = fields.slice(0, MAX_FIELDS_LISTED).join(", ");
  const more = fields.length - MAX_FIELDS_LISTED;
  return more > 0 ? `${shown} and ${more} more` : shown;
}

/** `onFailure skip → fail_run; port …` — every change with its values. */
export function fieldValues(changes: readonly FieldChange[]): string {
  return changes
    .map((c) => `${fieldText(c.path) || "value"} ${showValue(c.before)} → ${showValue(c.after)}`)
    .join("; ");
}

function graphLines(graph: GraphDiff, prefix: string): ChangeLine[] {
  const lines: ChangeLine[] = [];
  const step = (change: ChangeLine["change"], s: Step, message: string) =>
    lines.push({ kind: "step", change, target: `${prefix}${s.id}`, message });
  for (const s of graph.steps.added) step("added", s, `${stepLabel(s, prefix)} added`);
  for (const s of graph.steps.removed) step("removed", s, `${stepLabel(s, prefix)} removed`);
  for (const c of graph.steps.changed) {
    if (c.changes.length > 0) {
      const typeChange = c.changes.find((f) => f.path.length === 1 && f.path[0] === "type");
      const label = typeChange
        ? `step \`${prefix}${c.id}\` (${c.before.type} → ${c.after.type})`
        : stepLabel(c.after, prefix);
      // A retyped step's config is a different schema: name top-level fields, not every key.
      const rest = c.changes
        .filter((f) => f !== typeChange)
        .map((f) => (typeChange ? { ...f, path: f.path.slice(0, 1) } : f));
      step("changed", c.after, rest.length > 0 ? `${label}: ${fieldList(rest)} changed` : label);
    }
    if (c.body) lines.push(...graphLines(c.body, `${prefix}${c.id}/`));
  }
  const edge = (change: ChangeLine["change"], e: Edge, message: string) =>
    lines.push({ kind: "edge", change, target: edgeLabel(e, prefix), message });
  for (const e of graph.edges.added)
    edge("added", e, `edge ${edgeLabel(e, prefix)} added${onFailureNote(e)}`);
  for (const e of graph.edges.removed) edge("removed", e, `edge ${edgeLabel(e, prefix)} removed`);
  for (const c of graph.edges.changed)
    edge("changed", c.after, `edge ${edgeLabel(c.after, prefix)}: ${fieldValues(c.changes)}`);
  return lines;
}

function onFailureNote(edge: Edge): string {
  return edge.onFailure && edge.onFailure !== "skip" ? ` (onFailure ${edge.onFailure})` : "";
}

function keyedLines(kind: "input" | "variable", diff: KeyedDiff): ChangeLine[] {
  const line = (change: ChangeLine["change"], name: string, message: string): ChangeLine => ({
    kind,
    change,
    target: name,
    message,
  });
  return [
    ...diff.added.map((name) => line("added", name, `${kind} \`${name}\` added`)),
    ...diff.removed.map((name) => line("removed", name, `${kind} \`${name}\` removed`)),
    ...diff.changed.map(({ name, changes }) => {
      const whole = changes.length === 1 && changes[0]!.path.length === 0;
      const detail = whole
        ? `${showValue(changes[0]!.before)} → ${showValue(changes[0]!.after)}`
        : `${fieldList(changes)} changed`;
      return line("changed", name, `${kind} \`${name}\`: ${detail}`);
    }),
  ];
}

function fieldLine(kind: "metadata" | "constraint", change: FieldChange): ChangeLine {
  const target = fieldText(change.path);
  const verb =
    change.before === undefined ? "added" : change.after === undefined ? "removed" : "changed";
  const detail =
    verb === "added"
      ? `set to ${showValue(change.after)}`
      : verb === "removed"
        ? `removed (was ${showValue(change.before)})`
        : `${showValue(change.before)} → ${showValue(change.after)}`;
  return {
    kind,
    change: verb,
    target,
    message: `${kind === "constraint" ? "constraint " : ""}${target}: ${detail}`,
  };
}
