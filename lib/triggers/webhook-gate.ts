/**
 * Which webhook deliveries start runs (SPEC §7), pure: required header values, then the filter
 * condition over the delivery as `trigger.*` (the same payload the run gets). A delivery that
 * fails either is skipped, with a reason a person can read.
 */
import { ConditionError, type Condition } from "@/lib/workflow/conditions";
import { explainCondition } from "@/lib/workflow/condition-eval";
import { preview } from "@/lib/workflow/json";

/** Why the delivery's headers do not match (first mismatch), or null. */
export function headerMismatch(
  required: Readonly<Record<string, string>> | undefined,
  header: (name: string) => string | null,
): string | null {
  for (const [name, expected] of Object.entries(required ?? {})) {
    const actual = header(name);
    if (actual === expected) continue;
    return `header ${name} ${actual === null ? "missing" : `is ${preview(actual)}`}, needs ${preview(expected)}`;
  }
  return null;
}

/** Why the filter does not let the delivery through, or null. */
export function filterMiss(filter: Condition | undefined, trigger: unknown): string | null {
  if (!filter) return null;
  try {
    const why = explainCondition(filter, { trigger });
    return why === null ? null : `filter: ${why}`;
  } catch (e) {
    if (!(e instanceof ConditionError)) throw e;
    return `filter could not be evaluated: ${e.message}`;
  }
}
