/**
 * The validator's issues as the inspector shows them: next to the field their path points at,
 * through the form layer's one adapter. Messages lose the "Step "x" (type): config.url:" prefix
 * next to their field, where it only repeats what the field's label says.
 */
import type { EditorIssue } from "@/components/workflows/issue-list";
import { FORM_KEY, mapIssues, type FieldPath, type IssueLike } from "@/components/forms/issues";
import { fieldText } from "@/lib/workflow/issues";
import { stepPath, type Definition, type DocPath } from "@/lib/workflow/edit-ops";

export interface PlacedIssues {
  /** Dotted path relative to the inspected object → first message. */
  readonly byField: Readonly<Record<string, string>>;
  /** Issues about the object as a whole, or pointing outside it (e.g. its edges). */
  readonly general: readonly EditorIssue[];
}

/** Drops the "Step "id" (type): " prefix and a leading "<field path>: ". */
export function shortMessage(message: string, rel: FieldPath): string {
  const withoutStep = message.replace(/^Step "[^"]*"(?: \([^)]*\))?: /, "");
  for (const key of [fieldText([...rel]), rel.join(".")]) {
    if (key && withoutStep.startsWith(`${key}: `)) return withoutStep.slice(key.length + 2);
  }
  return withoutStep;
}

const short = (issue: IssueLike, rel: FieldPath) => shortMessage(issue.message, rel);

/** The issues of step `id`: by field (config, when, retry, …) and the rest (edges, the step). */
export function stepIssues(
  issues: readonly EditorIssue[],
  definition: Definition,
  id: string,
): PlacedIssues {
  const at = stepPath(definition, id);
  if (!at) return { byField: {}, general: issues.filter((i) => i.stepId === id) };
  // A loop's path holds its body steps' issues too; those belong to the body steps.
  const own = issues.filter((i) => i.stepId === undefined || i.stepId === id);
  const mapped = mapIssues(own, { within: [at], message: short });
  const { [FORM_KEY]: _whole, ...byField } = mapped.byField;
  const general = own.filter(
    (i) =>
      (i.stepId === id || isUnder(i.path, at)) &&
      (!isUnder(i.path, at) || i.path.length === at.length),
  );
  return { byField, general };
}

/** Issues at or below `path` (e.g. the workflow's top-level fields, one edge). */
export function issuesAt(issues: readonly EditorIssue[], path: DocPath): PlacedIssues {
  const mapped = mapIssues(issues, { within: [path], message: short });
  const { [FORM_KEY]: _whole, ...byField } = mapped.byField;
  return {
    byField,
    general: issues.filter((i) => i.path.length === path.length && isUnder(i.path, path)),
  };
}

function isUnder(path: readonly (string | number)[], prefix: DocPath): boolean {
  return prefix.length <= path.length && prefix.every((p, i) => String(path[i]) === String(p));
}

/** The first message at `key` or below it (a fieldset shows its children's problems too). */
export function messageAt(
  byField: Readonly<Record<string, string>>,
  key: string,
): string | undefined {
  if (byField[key]) return byField[key];
  const below = Object.keys(byField).find((k) => k.startsWith(`${key}.`));
  return below ? byField[below] : undefined;
}

/** The messages under `prefix`, keyed relative to it (`prefix` itself becomes "_form"). */
export function errorsUnder(
  byField: Readonly<Record<string, string>>,
  prefix: string,
): Record<string, string> {
  const out: Record<string, string> = {};
  for (const [key, message] of Object.entries(byField)) {
    if (key === prefix) out[FORM_KEY] ??= message;
    else if (key.startsWith(`${prefix}.`)) out[key.slice(prefix.length + 1)] ??= message;
  }
  return out;
}
